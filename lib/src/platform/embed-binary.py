#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes a C++ source defining `extern "C" const unsigned char NAME[]` with a binary file's bytes
(a CUDA fatbin, SPIR-V words), aligned for any word size, and `NAME_size`, their count."""
import sys

source, output, name = sys.argv[1:4]
data = open(source, 'rb').read()
with open(output, 'w') as out:
    out.write('// Generated from %s by embed-binary.py; do not edit.\n' % source.rsplit('/', 1)[-1])
    out.write('extern "C" const unsigned char %s[];\n' % name)
    out.write('extern "C" const unsigned char %s[] __attribute__((aligned(64))) = {\n' % name)
    for i in range(0, len(data), 20):
        out.write('    ' + ', '.join(str(b) for b in data[i:i + 20]) + ',\n')
    out.write('};\n')
    out.write('extern "C" const unsigned int %s_size;\n' % name)
    out.write('extern "C" const unsigned int %s_size = %d;\n' % (name, len(data)))
