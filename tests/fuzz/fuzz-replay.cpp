// SPDX-License-Identifier: LGPL-2.1-or-later
// A fuzz target in the ordinary test suites: every file of its seed corpus and of its
// regressions folder (G2G_FUZZ_CORPUS, G2G_FUZZ_REGRESSIONS) is one GoogleTest case that runs the
// target once on it. A crash, a sanitizer report or a fatal GLib warning fails the program, which
// names the file. main() is the suites' own (tests/support/gst-test-main.cpp: GStreamer up, the
// leaks tracer's report checked).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv);
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace {

namespace fs = std::filesystem;

class ReplayFile : public testing::Test {
public:
    explicit ReplayFile(fs::path path) : path_(std::move(path)) {}

    void TestBody() override
    {
        static const bool initialized = [] {
            int argc = 0;
            char **argv = nullptr;
            return LLVMFuzzerInitialize(&argc, &argv) == 0;
        }();
        ASSERT_TRUE(initialized);
        std::ifstream file(path_, std::ios::binary);
        ASSERT_TRUE(file) << "cannot read " << path_;
        const std::vector<char> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
        std::printf("replaying %s (%zu bytes)\n", path_.c_str(), bytes.size());
        EXPECT_EQ(LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size()),
                  0);
    }

private:
    fs::path path_;
};

// A GoogleTest name from a file name: letters, digits and underscores.
std::string case_name(const std::string &file)
{
    std::string name = file;
    std::replace_if(
        name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    return name;
}

// One case per file of `dir` (sorted; README files and dot files are not inputs).
void register_folder(const char *suite, const fs::path &dir)
{
    std::error_code error;
    std::vector<fs::path> files;
    for (const auto &entry : fs::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && name[0] != '.' && name.rfind("README", 0) != 0)
            files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path &path : files) {
        testing::RegisterTest(suite, case_name(path.filename().string()).c_str(), nullptr, path.c_str(),
                              __FILE__, __LINE__,
                              [path]() -> testing::Test * { return new ReplayFile(path); });
    }
}

const bool registered = [] {
    register_folder("corpus", G2G_FUZZ_CORPUS);
    register_folder("regressions", G2G_FUZZ_REGRESSIONS);
    return true;
}();

} // namespace
