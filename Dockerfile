# Arbiter's roll server for a host (docs/hosting.md, "In a container").
#
#   docker build -t arbiter .
#   docker run -d --name arbiter -p 8765:8765 -v arbiter-data:/data arbiter \
#       --public-url https://arbiter.example.com --allow-origin https://vtt.example.com
#   docker exec arbiter arbiter token --data /data/world      # the GM's world secret
#
# Stage 1 builds the wheel (compiling the engine: gcc and the Python headers are here only);
# stage 2 installs that wheel alone and runs as an unprivileged user. Everything the server
# keeps (world secret, roll log, the built module) is under the volume /data.
# tests/packaging/test_container.py runs these steps' commands and the entry point without
# a Docker engine.

FROM python:3.11-slim AS wheel
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN pip install --no-cache-dir "build>=1.2" \
 && python -m build --wheel --outdir /wheels .

FROM python:3.11-slim
RUN useradd --system --uid 10001 --user-group --home-dir /data --shell /usr/sbin/nologin arbiter \
 && mkdir -p /data \
 && chown arbiter:arbiter /data \
 && chmod 0700 /data
COPY --from=wheel /wheels/ /wheels/
RUN pip install --no-cache-dir /wheels/*.whl \
 && rm -rf /wheels
USER arbiter
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8765
# Plain http on loopback: with --certfile, replace it (docs/hosting.md).
HEALTHCHECK --interval=30s --timeout=5s \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/healthz', timeout=4)"]
ENTRYPOINT ["arbiter", "serve", "--host", "0.0.0.0", "--port", "8765", "--data", "/data/world", "--module-dir", "/data/module/arbiter"]
CMD []
