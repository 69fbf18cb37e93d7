# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs the unittest modules named on the command line and reports in TAP, which `meson test`
(protocol 'tap') reads case by case: python3 tap.py test_tensors [test_gi ...]"""

import importlib
import sys
import traceback
import unittest


class TapResult(unittest.TestResult):
    def __init__(self):
        super().__init__()
        self.count = 0

    def _report(self, test, ok, directive="", details=None):
        self.count += 1
        name = test.id().split(".", 1)[-1]
        print(f"{'ok' if ok else 'not ok'} {self.count} - {name}{directive}", flush=True)
        for line in (details or "").rstrip().splitlines():
            print(f"# {line}", flush=True)

    def addSuccess(self, test):
        super().addSuccess(test)
        self._report(test, True)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._report(test, False, details="".join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self._report(test, False, details="".join(traceback.format_exception(*err)))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self._report(test, True, f" # SKIP {reason}")

    def addSubTest(self, test, subtest, err):
        super().addSubTest(test, subtest, err)
        if err is not None:
            self._report(subtest, False, details="".join(traceback.format_exception(*err)))


def main(modules):
    suite = unittest.TestSuite()
    for name in modules:
        try:
            module = importlib.import_module(name)
        except unittest.SkipTest as skipped:
            # What the module needs is missing here (a GPU, PyGObject): all of it skips.
            print(f"1..0 # SKIP {name}: {skipped}", flush=True)
            return 0
        suite.addTests(unittest.defaultTestLoader.loadTestsFromModule(module))
    result = TapResult()
    suite.run(result)
    print(f"1..{result.count}", flush=True)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
