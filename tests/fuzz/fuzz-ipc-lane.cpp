// SPDX-License-Identifier: LGPL-2.1-or-later
// Fuzz target: a lane (gst/ipc/ipc-lane.h, issue 33) between an honest side and a hostile one. The
// producer's LaneWriter and the consumer's LaneReader share one real lane (a memfd mapped twice,
// as across processes); the input is a program of steps, each one of:
//   - the producer writes a record (a type, a payload of 0 to 300 bytes, 0 to 16 descriptors);
//   - the consumer takes the next record;
//   - the consumer releases a frame id; the producer takes the releases;
//   - a lie: any value written into the lane's shared counters (written, read, released, reaped),
//     any bytes into its records or its release ring, at any position.
//
// Oracle:
//  - nothing is read or written outside the lane's mapping (an access past its last page faults),
//    and what the writer writes stays in its records and its counter: the consumer's release ring
//    and counters, and the lane's header, are as they were;
//  - a record the reader returns is one a header could say (payload under the lane's size, at most
//    16 descriptors), and the releases the writer takes are at most the ring's size at a time,
//    each an id the release ring held;
//  - without a lie, every record comes out as it was written, in order, the reader never refuses,
//    and every release comes back.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "fuzz-input.h"
#include "fuzz-main.h"
#include "ipc-lane.h"

namespace {

using g2g::ipc::LaneLayout;

[[noreturn]] void fail(const std::string &what)
{
    std::fprintf(stderr, "fuzz-ipc-lane: %s\n", what.c_str());
    std::abort();
}

struct Written {
    std::uint32_t type = 0, descriptors = 0;
    std::vector<std::uint8_t> payload;
};

// What lies outside the records and the producer's counter in the lane's mapping `pages`: the
// writer must leave it as it was.
std::vector<std::uint8_t> outside_records(const void *pages)
{
    constexpr std::size_t head = offsetof(LaneLayout, written);
    constexpr std::size_t from = offsetof(LaneLayout, read), to = offsetof(LaneLayout, records);
    std::vector<std::uint8_t> copy(head + (to - from));
    std::memcpy(copy.data(), pages, head);
    std::memcpy(copy.data() + head, static_cast<const char *>(pages) + from, to - from);
    return copy;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    const g2g::fuzz::FatalWarnings fatal;
    g2g::fuzz::FuzzInput input(data, size);
    g2g::Result<g2g::ipc::LaneWriter> writer = g2g::ipc::LaneWriter::create();
    if (!writer)
        fail("no lane: " + writer.error().message());
    g2g::Result<g2g::ipc::LaneReader> reader =
        g2g::ipc::LaneReader::map(g2g::ipc::UniqueFd(::dup(writer->fd())));
    if (!reader)
        fail("the reader refused an honest lane: " + reader.error().message());
    // The hostile side's own view of the lane: a third mapping, writable.
    void *pages = ::mmap(nullptr, sizeof(LaneLayout), PROT_READ | PROT_WRITE, MAP_SHARED, writer->fd(), 0);
    if (pages == MAP_FAILED)
        fail("cannot map the lane");
    auto *lane = static_cast<LaneLayout *>(pages);

    bool lied = false, reader_refused = false;
    std::deque<Written> unread;         // honest records not yet read
    std::deque<std::uint64_t> unreaped; // honest releases not yet taken
    std::uint64_t next_id = 1;
    for (int step = 0; step < 64 && !input.empty(); ++step) {
        switch (input.range(0, 7)) {
        case 0: { // the producer writes a record
            Written record;
            record.type = static_cast<std::uint32_t>(input.range(0, 30));
            record.descriptors = static_cast<std::uint32_t>(input.range(0, 16));
            const std::string payload = input.string(300);
            record.payload.assign(payload.begin(), payload.end());
            const std::vector<std::uint8_t> before = outside_records(pages);
            const bool wrote = writer->write(record.type, record.payload, record.descriptors);
            if (outside_records(pages) != before)
                fail("the writer wrote outside its records and its counter");
            if (wrote)
                unread.push_back(std::move(record));
            else if (!lied) // 64 records of at most 316 bytes never fill its 1 MiB
                fail("an honest lane with room refused a record");
            break;
        }
        case 1: { // the consumer takes the next record
            if (reader_refused)
                break; // g2gipcsrc ends its stream at the first refusal
            g2g::Result<std::optional<g2g::ipc::LaneRecord>> record = reader->next();
            if (!record) {
                if (record.error().message().empty())
                    fail("a refusal without a text");
                if (!lied)
                    fail("an honest lane was refused: " + record.error().message());
                reader_refused = true;
                break;
            }
            if (!*record) {
                if (!lied && !unread.empty())
                    fail("a written record did not come");
                break;
            }
            if ((*record)->payload.size() >= g2g::ipc::kLaneBytes || (*record)->descriptors > 16)
                fail("a record no header could say came out");
            if (!lied) {
                if (unread.empty())
                    fail("a record came that was never written");
                const Written &expected = unread.front();
                if ((*record)->type != expected.type || (*record)->descriptors != expected.descriptors ||
                    (*record)->payload != expected.payload)
                    fail("a record came out other than it was written");
                unread.pop_front();
            }
            break;
        }
        case 2: { // the consumer releases a frame
            const std::uint64_t id = next_id++;
            if (reader->release(id))
                unreaped.push_back(id);
            else if (!lied)
                fail("an honest release ring with room refused a release");
            break;
        }
        case 3: { // the producer takes the releases
            std::vector<std::uint64_t> ids;
            const std::vector<std::uint64_t> ring(lane->ids, lane->ids + g2g::ipc::kLaneReleases);
            g2g::Result<void> taken = writer->take_releases(ids);
            if (!taken) {
                if (taken.error().message().empty())
                    fail("a refusal without a text");
                if (!lied)
                    fail("honest releases were refused: " + taken.error().message());
                break;
            }
            if (ids.size() > g2g::ipc::kLaneReleases)
                fail("more releases were taken than the ring holds");
            for (std::uint64_t id : ids)
                if (std::find(ring.begin(), ring.end(), id) == ring.end())
                    fail("a release was taken that the ring did not hold");
            if (!lied) {
                if (ids != std::vector<std::uint64_t>(unreaped.begin(), unreaped.end()))
                    fail("the releases came back other than they were made");
                unreaped.clear();
            }
            break;
        }
        case 4: { // a lie in a counter
            lied = true;
            const std::uint64_t value = input.flag()
                                            ? static_cast<std::uint64_t>(input.range(0, 1 << 22))
                                            : static_cast<std::uint64_t>(input.range(0, INT64_MAX)) << 1;
            switch (input.range(0, 3)) {
            case 0:
                lane->written.store(value);
                break;
            case 1:
                lane->read.store(value);
                break;
            case 2:
                lane->released.store(value);
                break;
            default:
                lane->reaped.store(value);
                break;
            }
            break;
        }
        case 5: { // a lie in the records
            lied = true;
            const std::size_t at = static_cast<std::size_t>(input.range(0, g2g::ipc::kLaneBytes - 1));
            const std::string bytes = input.string(32);
            const std::size_t length = std::min(bytes.size(), g2g::ipc::kLaneBytes - at);
            std::memcpy(lane->records + at, bytes.data(), length);
            break;
        }
        case 6: { // a lie in the release ring
            lied = true;
            lane->ids[input.range(0, g2g::ipc::kLaneReleases - 1)] =
                static_cast<std::uint64_t>(input.range(0, INT64_MAX));
            break;
        }
        default: { // the consumer reads every record there is
            for (int i = 0; i < 8 && !reader_refused; ++i) {
                g2g::Result<std::optional<g2g::ipc::LaneRecord>> record = reader->next();
                if (!record) {
                    if (!lied)
                        fail("an honest lane was refused: " + record.error().message());
                    reader_refused = true;
                } else if (!*record) {
                    break;
                } else if (!lied) {
                    if (unread.empty() || (*record)->payload != unread.front().payload)
                        fail("a record came out other than it was written");
                    unread.pop_front();
                }
            }
            break;
        }
        }
    }
    ::munmap(pages, sizeof(LaneLayout));
    return 0;
}
