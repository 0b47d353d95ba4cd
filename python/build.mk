# SPDX-License-Identifier: MIT
# The Python package quire: python/quire/ copied into $(BUILD)/python/quire/ beside the
# constants generated from the contract headers, so PYTHONPATH=$(BUILD)/python uses the
# build tree's libquire ($(BUILD)/lib). `make install` puts it in Debian's dist-packages.
# Debian's own interpreter (python3-numpy, python3-torch), not the first python3 on PATH,
# which may be another without them.
QUIRE_PYTHON ?= $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
PY_SRCS := $(wildcard python/quire/*.py)
PY_PKG := $(PY_SRCS:python/%=$(BUILD)/python/%) $(BUILD)/python/quire/_consts.py
$(BUILD)/python/quire/%.py: python/quire/%.py
	@mkdir -p $(dir $@)
	cp $< $@
$(BUILD)/python/quire/_consts.py: python/gen_consts.py include/quire/status.h \
		include/quire/format.h include/quire/cmd.h host/include/quire.h
	@mkdir -p $(dir $@)
	$(PYTHON) python/gen_consts.py include host/include $@
all: $(PY_PKG)
python-pkg: $(PY_PKG)
.PHONY: python-pkg
test-programs: $(PY_PKG)

# Where the package goes: PREFIX /usr is Debian's python3/dist-packages; elsewhere
# lib/pythonX.Y/dist-packages, the directory Debian's python3 searches under /usr/local.
PY_VERSION := $(shell $(QUIRE_PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
ifeq ($(PREFIX),/usr)
PYDIR ?= $(PREFIX)/lib/python3/dist-packages
else
PYDIR ?= $(PREFIX)/lib/python$(PY_VERSION)/dist-packages
endif
install: install-python
install-python: $(PY_PKG)
	install -d $(DESTDIR)$(PYDIR)/quire
	install -m 644 $(PY_PKG) $(DESTDIR)$(PYDIR)/quire/
	# The installed package loads the libquire of this install first.
	printf '# SPDX-License-Identifier: MIT\n# Written by make install.\nLIBDIR = "%s"\n' \
		'$(LIBDIR)' > $(DESTDIR)$(PYDIR)/quire/_install.py
uninstall: uninstall-python
uninstall-python:
	rm -rf $(DESTDIR)$(PYDIR)/quire
.PHONY: install-python uninstall-python
