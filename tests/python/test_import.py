# SPDX-License-Identifier: LGPL-2.1-or-later
"""`import g2g` where libg2g is not where the dynamic loader looks says what to do, not only the
loader's "libg2g.so.0: cannot open shared object file"."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import g2g

PACKAGE = os.path.dirname(g2g.__file__)


def import_g2g(pythonpath, **variables):
    """`import g2g` in a fresh interpreter without the build's LD_LIBRARY_PATH: its stderr's last line."""
    env = {name: value for name, value in os.environ.items() if name not in ("LD_LIBRARY_PATH", "G2G_LIBRARY")}
    env.update(variables, PYTHONPATH=pythonpath)
    done = subprocess.run([sys.executable, "-c", "import g2g"], env=env, capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        return None
    return done.stderr.strip().splitlines()[-1]


class ImportErrors(unittest.TestCase):
    def setUp(self):
        # The loader finds a libg2g installed where it looks by itself: nothing to refuse then.
        env = {name: value for name, value in os.environ.items() if name != "LD_LIBRARY_PATH"}
        if subprocess.run([sys.executable, "-c", "import ctypes; ctypes.CDLL('libg2g.so.0')"], env=env,
                          capture_output=True).returncode == 0:
            self.skipTest("a libg2g is installed where the dynamic loader looks: import g2g finds it")

    def test_a_library_not_found_says_what_sets_its_path(self):
        self.assertEqual(
            import_g2g(os.path.dirname(PACKAGE)),
            "ImportError: g2g: cannot load libg2g (libg2g.so.0: cannot open shared object file: No such file or "
            "directory): installed with a prefix other than /usr: run `. <prefix>/share/g2g-1.0/env.sh` first (it "
            "sets LD_LIBRARY_PATH, PYTHONPATH, GI_TYPELIB_PATH, GST_PLUGIN_PATH and PKG_CONFIG_PATH); from a build "
            "tree: run the command through `meson devenv -C <build dir>`; or set G2G_LIBRARY to libg2g's path")

    def test_an_installed_package_names_its_prefixs_env_file(self):
        with tempfile.TemporaryDirectory() as prefix:
            site = os.path.join(prefix, "lib", "python3", "dist-packages")
            shutil.copytree(PACKAGE, os.path.join(site, "g2g"), symlinks=False)
            env_file = os.path.join(prefix, "share", "g2g-1.0", "env.sh")
            os.makedirs(os.path.dirname(env_file))
            open(env_file, "w").close()
            self.assertEqual(
                import_g2g(site),
                "ImportError: g2g: cannot load libg2g (libg2g.so.0: cannot open shared object file: No such file "
                f"or directory): run `. {os.path.realpath(env_file)}` first: it sets the paths of g2g's installation")

    def test_g2g_library_naming_no_library_says_so(self):
        self.assertEqual(
            import_g2g(os.path.dirname(PACKAGE), G2G_LIBRARY="/nonexistent/libg2g.so.0"),
            "ImportError: g2g: cannot load libg2g (/nonexistent/libg2g.so.0: cannot open shared object file: No such "
            "file or directory): G2G_LIBRARY must name libg2g's path (or be unset)")
