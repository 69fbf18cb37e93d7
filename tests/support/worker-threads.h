// SPDX-License-Identifier: LGPL-2.1-or-later
// Test helper: the WorkerPool threads this process runs now (g2g names them "g2g-worker"), to check
// that a pool starts the threads it says and that they are joined when it goes.
#pragma once

namespace g2g::test {

// The threads of this process named "g2g-worker" (/proc/self/task/*/comm).
unsigned worker_threads();

// worker_threads() once it equals `expected`, waiting up to a second for a joined thread to leave
// /proc (a joined thread is gone at once; the wait covers a slow /proc), else its last value.
unsigned worker_threads_settled(unsigned expected);

} // namespace g2g::test
