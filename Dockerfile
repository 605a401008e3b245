# One image for the whole stack. `docker compose up` serves every portal, the task launcher and
# the admin and tool APIs on port 8300; APP=<name> introduces the same server as one app's (see
# docker/entrypoint.sh). The same image runs the benchmark: `docker compose run --rm cfab-run`.
FROM python:3.11-slim-bookworm

# Debian's Chromium, for the browser transport (`cfab run --transport browser`); build with
# --build-arg CHROMIUM=0 for a serve-only image.
ARG CHROMIUM=1
RUN if [ "$CHROMIUM" = "1" ]; then \
      apt-get update \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium \
      && rm -rf /var/lib/apt/lists/*; \
    fi

# The project as a wheel would install it: code, templates, static files, policy documents,
# gold trajectories, the book and the judge's calibration set (package data, pyproject.toml).
WORKDIR /src
COPY pyproject.toml README.md ./
COPY portals ./portals
COPY agent ./agent
COPY grader ./grader
COPY seeds ./seeds
COPY tasks ./tasks
COPY templates ./templates
COPY static ./static
RUN pip install --no-cache-dir . && rm -rf /src

COPY docker/entrypoint.sh /usr/local/bin/cfab-entrypoint
RUN chmod 0755 /usr/local/bin/cfab-entrypoint \
    && useradd --create-home --uid 1000 cfab \
    && mkdir -p /data/recordings /data/results /data/cache \
    && chown -R cfab:cfab /data
USER cfab
WORKDIR /data
ENV APP=all \
    PORT=8300 \
    CFAB_CACHE_DIR=/data/cache \
    CFAB_CHROMIUM=/usr/bin/chromium \
    PYTHONUNBUFFERED=1
EXPOSE 8300
ENTRYPOINT ["cfab-entrypoint"]
