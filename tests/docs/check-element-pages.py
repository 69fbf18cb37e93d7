#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks docs/elements/*.md against pages generated from this build's plugin.

Every element this build registers is compared exactly, after dropping from the checked-in page
the parts marked for features this build lacks (feature-markers.h); an element page this build
cannot check (the element is not registered, or its page needs features the build lacks) is named
as not checked. A difference fails with a unified diff and the command that regenerates the pages.
"""
import argparse
import difflib
import pathlib
import re
import subprocess
import sys

REGENERATE = 'ninja -C <build> element-pages  (in a build with cuda, vulkan and dmabuf)'
BEGIN = re.compile(r'^<!-- only in builds with: (\w+) -->$')
END = re.compile(r'^<!-- end of: (\w+) -->$')
CHECKED_WITH = re.compile(r'^<!-- checked by builds with: ([\w ]+) -->$', re.M)


def without_features(text, lacking):
    """The page without the blocks marked for a feature in `lacking`."""
    out, skipping = [], None
    for line in text.splitlines(keepends=True):
        begin, end = BEGIN.match(line.rstrip('\n')), END.match(line.rstrip('\n'))
        if skipping is None and begin and begin.group(1) in lacking:
            skipping = begin.group(1)
        elif skipping is not None and end and end.group(1) == skipping:
            skipping = None
        elif skipping is None:
            out.append(line)
    return ''.join(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--generator', required=True)
    parser.add_argument('--docs', required=True, type=pathlib.Path)
    parser.add_argument('--out', required=True, type=pathlib.Path)
    parser.add_argument('--features', default='')
    args = parser.parse_args()
    features = {f for f in args.features.split(',') if f}
    lacking = {'cuda', 'vulkan', 'dmabuf'} - features

    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob('*.md'):
        old.unlink()
    subprocess.run([args.generator, '--out', str(args.out), '--hand-written', str(args.docs / 'examples'),
                    '--features', args.features], check=True)
    generated = {p.stem: p.read_text() for p in args.out.glob('*.md')}
    checked_in = {p.stem: p.read_text() for p in args.docs.glob('*.md')}

    failed, checked, not_checked = [], [], []
    for name in sorted(set(generated) | set(checked_in)):
        if name not in checked_in:
            failed.append(name)
            print(f'{name}: this build registers it but docs/elements/{name}.md does not exist')
            continue
        needs = CHECKED_WITH.search(checked_in[name])
        missing = sorted(set(needs.group(1).split()) - features) if needs else []
        if name not in generated and not lacking:
            failed.append(name)
            print(f'{name}: docs/elements/{name}.md is a page of no element this full build registers')
            continue
        if name not in generated or missing:
            why = f'needs {", ".join(missing)}' if missing else 'this build does not register it'
            not_checked.append(f'{name} ({why})')
            continue
        expected = without_features(checked_in[name], lacking)
        if expected != generated[name]:
            failed.append(name)
            sys.stdout.writelines(difflib.unified_diff(
                expected.splitlines(keepends=True), generated[name].splitlines(keepends=True),
                f'docs/elements/{name}.md' + (f' (without {", ".join(sorted(lacking))})' if lacking else ''),
                f'generated from this build: {args.out / (name + ".md")}'))
        else:
            checked.append(name)

    print(f'checked: {", ".join(checked) or "none"}')
    if lacking:
        print(f'parts not checked by this build (it lacks {", ".join(sorted(lacking))}): those marked '
              f'"only in builds with" them')
    if not_checked:
        print(f'NOT checked by this build: {", ".join(not_checked)}')
    if failed:
        print(f'FAILED: {", ".join(failed)} differ from the plugin. Regenerate the pages: {REGENERATE}')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
