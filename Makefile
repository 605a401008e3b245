# Two commands do all set-up on a fresh machine:
#   make run   - install, then run the benchmark (oracle policy, browser transport) and
#                write its report to results/report/
#   make test  - install, then run the unit tests and the e2e browser tests
#   make validate - the full admission gate on every transport (tools, browser, http), and on a
#                   throwaway private split
#   make attack   - an outside attack over HTTP on a real cfab serve (no 5xx allowed)
VENV    ?= .venv
PY      := $(VENV)/bin/python
POLICY  ?= oracle
TRANSPORT ?= browser
K       ?= 2
SUDO    := $(shell [ "$$(id -u)" = "0" ] || echo sudo)

.PHONY: install chromium run test validate bench serve attack clean

install: $(VENV)/.installed chromium

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

chromium:
	@if [ ! -x /usr/bin/chromium ] && [ -z "$$CFAB_CHROMIUM" ]; then \
	  echo "Installing Debian's chromium for the browser transport..."; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; \
	fi
	@# ffmpeg for `pytest e2e --video on` (Playwright's own download is missing here too)
	@if ! command -v ffmpeg >/dev/null; then \
	  echo "Installing Debian's ffmpeg for pytest e2e --video..."; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null; \
	fi
	@# Xvfb, a screen for `cfab replay --headed` and `pytest e2e --headed` on a machine with none
	@if ! command -v xvfb-run >/dev/null; then \
	  echo "Installing Debian's xvfb for --headed runs..."; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq xvfb xauth >/dev/null; \
	fi

run: install
	$(VENV)/bin/cfab run --policy $(POLICY) --transport $(TRANSPORT) --k $(K) --out results/$(POLICY)-$(TRANSPORT).json
	$(VENV)/bin/cfab report results/$(POLICY)-$(TRANSPORT).json --out results/report

# Two workers (the reference machine's cores); --dist loadfile keeps each file, and the order of
# its tests, in one worker, so a file's shared server, episodes and browser stay shared.
TEST_WORKERS ?= 2
test: install
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --durations=25 tests e2e

# The full admission gate on every transport (make test runs the browser and http halves, and
# the people and gold tests, on one instance per family); run before calling a
# suite change done. The http gate starts a cfab serve of its own on loopback.
validate: install
	$(VENV)/bin/cfab tasks validate --transport tools
	$(VENV)/bin/cfab tasks validate --transport browser
	$(VENV)/bin/cfab tasks validate --transport http
	CFAB_BROWSERGYM_ALL=1 $(PY) -m pytest -q tests/test_browsergym_venv.py
	@# every instance's browser oracle, noop and eager beside the tools transport (make test: the browser gate on one per family), person-made recording and gold replay; the monkey and typed markup on every app (make test: one per archetype)
	CFAB_E2E_ALL=1 $(PY) -m pytest -q e2e/test_people.py e2e/test_oracle_browser.py e2e/test_monkey.py e2e/test_xss.py
	@# the private split's gate on a throwaway salt (a real salt is the maintainer's, never here)
	mkdir -p build && printf 'make-validate-throwaway-salt\n' > build/validate.salt
	$(VENV)/bin/cfab dataset build-private --salt-file build/validate.salt --out build/pro-validate

bench: install
	$(VENV)/bin/cfab bench --out results/bench.json

serve: install
	$(VENV)/bin/cfab serve

# An outside attack on a real cfab serve, a few minutes (tests/attack.py): exits 1 on any 5xx
attack: install
	$(PY) tests/attack.py --out results/attack.json

clean:
	rm -rf $(VENV) results .pytest_cache
