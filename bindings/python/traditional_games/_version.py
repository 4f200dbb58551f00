# The distribution's version, which is the C project's version (pyproject.toml takes it from
# meson.build): the package's test suite checks the two agree.
__version__ = "0.4.0"
