#!/bin/sh
# The image's entry point. APP unset or "all": serve the whole stack (every portal, the task
# launcher, the admin and tool APIs). APP=<name>: host that app alone (`cfab serve --app`, as
# the paper's per-app shim does); a remote client joins such servers into one registry
# (`cfab run --transport http --server URL ...`). Any arguments are passed on to `cfab serve`.
set -eu
app="${APP:-all}"
port="${PORT:-8300}"
if [ "$app" != all ]; then
  root=$(python -c "import portals; print(portals.__path__[0])")
  case "$app" in
    *[!a-z0-9_]*) manifest="" ;;  # an app name is lower-case letters, digits and _
    *) manifest=$(ls "$root"/*/vendors/"$app".toml 2>/dev/null | head -n 1) ;;
  esac
  if [ -z "$manifest" ]; then
    names=$(cd "$root" && ls */vendors/*.toml | sed "s#.*/##; s#[.]toml\$##" | tr "\n" " ")
    echo "APP=$app is not an app of this stack; choose one of: ${names}or all" >&2
    exit 2
  fi
  base=$(sed -n "s#^base_path *= *\"\(.*\)\"#\1#p" "$manifest")
  echo "APP=$app: its portal is at http://localhost:${port}${base}/ (open an episode from the launcher at /)"
  exec cfab serve --host 0.0.0.0 --port "$port" --recordings "${CFAB_RECORDINGS:-/data/recordings}" --app "$app" "$@"
fi
exec cfab serve --host 0.0.0.0 --port "$port" --recordings "${CFAB_RECORDINGS:-/data/recordings}" "$@"
