# The README's two commands: `make demo` (set up, run the embedded demo) and `make test` (set up, run the tests).
# TORCH_SPEC pins the torch build the `hf` extra uses here (CUDA wheels on local disk that also run on CPU);
# on a GPU machine pick the build for your CUDA, e.g. TORCH_SPEC="torch torchvision".
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
TORCH_SPEC ?= torch==2.14.1 torchvision==0.29.1
DEMO_OUT ?= demo_out

.PHONY: setup-core setup demo test lint bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip setuptools wheel

$(VENV)/.core: $(PY) setup.cfg pyproject.toml
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.all: $(VENV)/.core
	$(PY) -m pip install -q $(TORCH_SPEC)
	$(PY) -m pip install -q -e ".[all,blender]"
	touch $@

setup-core: $(VENV)/.core
setup: $(VENV)/.all

demo: setup-core
	$(PY) -m harness demo --out $(DEMO_OUT)

test: setup
	@# CI only: headless Chromium for the report's HTML test, and FFmpeg's shared libraries for torchcodec
	@# (transformers serve decodes video with it; the `ffmpeg` package brings every library torchcodec loads,
	@# libavdevice and libavfilter included); each test skips where its piece is missing
	@if [ -n "$$CI" ] && command -v apt-get >/dev/null 2>&1; then \
		need=""; command -v chromium >/dev/null 2>&1 || need="chromium"; \
		ldconfig -p | grep -q libavdevice || need="$$need ffmpeg"; \
		if [ -n "$$need" ]; then (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$need >/dev/null) \
			|| echo "could not install$$need: the tests that need them will skip"; fi; \
		$(PY) -c "from transformers.utils.import_utils import is_torchcodec_usable as u; \
			print('torchcodec can decode video:', u(decode='video'))" || true; fi
	$(PY) -m ruff check .
	$(PY) -m pytest -q -p no:cacheprovider

bench: setup
	$(PY) -m bench

clean:
	rm -rf $(VENV) $(DEMO_OUT)
