// SPDX-License-Identifier: LGPL-2.1-or-later
// Writes docs/elements/<element>.md for every element the g2g plugin of this build registers, from
// its registry entry (GST_PLUGIN_PATH, GST_REGISTRY as the tests set them).
//
//   element-pages --out DIR --hand-written DIR --features cuda,vulkan,dmabuf [--full-build-only]
//
// --features: the optional features this build has; --full-build-only refuses a build without
// all of them (the pages in docs/ are a full build's: `ninja -C build element-pages` writes there).
#include "page-writer.h"

#include <gst/gst.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace {

constexpr const char *kAllFeatures[] = {"cuda", "vulkan", "dmabuf"};

// The elements a build registers only with optional features, and the features a page of them
// needs to be checked: their pad templates list what the build has (g2gconvert's directions).
struct Needs {
    const char *registered_in;
    const char *checked_with; // space-separated features
};
const std::map<std::string, Needs> kNeeds = {
    {"g2gconvert",
     {"builds with the cuda feature and the vulkan or dmabuf feature; this page is of a build "
      "with all three (its pad templates list the directions a build has)",
      "cuda vulkan dmabuf"}},
    {"g2gdmabufupload", {"builds with the dmabuf feature", "dmabuf"}},
};

std::string read_file(const std::string &path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

int fail(const std::string &message)
{
    std::fprintf(stderr, "element-pages: %s\n", message.c_str());
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    std::string out, hand_dir, features_arg;
    bool full_only = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (arg == "--hand-written" && i + 1 < argc)
            hand_dir = argv[++i];
        else if (arg == "--features" && i + 1 < argc)
            features_arg = argv[++i];
        else if (arg == "--full-build-only")
            full_only = true;
        else
            return fail("unknown argument " + arg);
    }
    if (out.empty() || hand_dir.empty())
        return fail("usage: element-pages --out DIR --hand-written DIR --features LIST [--full-build-only]");
    std::set<std::string> features;
    std::istringstream list(features_arg);
    for (std::string f; std::getline(list, f, ',');)
        if (!f.empty())
            features.insert(f);
    if (full_only) {
        for (const char *f : kAllFeatures) {
            if (!features.count(f))
                return fail(
                    std::string("the pages in docs/elements are those of a build with cuda, vulkan and "
                                "dmabuf; this build lacks ") +
                    f + ": regenerate them in a full build");
        }
    }

    gst_init(&argc, &argv);
    g_autoptr(GstPlugin) plugin = gst_registry_find_plugin(gst_registry_get(), "g2g");
    if (!plugin)
        return fail("no plugin g2g in the registry: set GST_PLUGIN_PATH to the build's gst/ folder");
    g_autoptr(GstPlugin) loaded = gst_plugin_load(plugin);
    if (!loaded)
        return fail("the g2g plugin does not load");
    GList *factories = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "g2g");
    int written = 0;
    for (GList *l = factories; l; l = l->next) {
        if (!GST_IS_ELEMENT_FACTORY(l->data))
            continue;
        GstElementFactory *factory = GST_ELEMENT_FACTORY(l->data);
        const std::string name = GST_OBJECT_NAME(factory);
        const std::string hand_path = "docs/elements/examples/" + name + ".md";
        const auto hand = g2g::docs::parse_hand_written(read_file(hand_dir + "/" + name + ".md"));
        const auto needs = kNeeds.find(name);
        std::string page = g2g::docs::element_page(
            factory, hand, needs == kNeeds.end() ? "every build" : needs->second.registered_in, hand_path);
        if (needs != kNeeds.end())
            page.insert(page.find("-->\n# ") + 4,
                        "<!-- checked by builds with: " + std::string(needs->second.checked_with) + " -->\n");
        std::ofstream file(out + "/" + name + ".md");
        file << page;
        if (!file)
            return fail("cannot write " + out + "/" + name + ".md");
        ++written;
    }
    gst_plugin_feature_list_free(factories);
    std::printf("element-pages: %d pages written to %s\n", written, out.c_str());
    gst_deinit();
    return written > 0 ? 0 : 1;
}
