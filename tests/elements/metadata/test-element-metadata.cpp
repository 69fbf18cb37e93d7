// SPDX-License-Identifier: LGPL-2.1-or-later
// Every element of the plugin carries its metadata in GStreamer's form: a one-line description
// (gst-inspect-1.0 lists it beside the others), a documentation URI naming its page under the
// doc-url option, and the plugin an origin (gst-inspect's "Origin URL").
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "g2g-docs-config.h"

namespace {

std::vector<GstElementFactory *> g2g_factories()
{
    std::vector<GstElementFactory *> factories;
    GList *features = gst_registry_get_feature_list_by_plugin(gst_registry_get(), "g2g");
    for (GList *l = features; l; l = l->next) {
        if (GST_IS_ELEMENT_FACTORY(l->data))
            factories.push_back(GST_ELEMENT_FACTORY(gst_object_ref(l->data)));
    }
    gst_plugin_feature_list_free(features);
    return factories;
}

TEST(ElementMetadata, EveryElementHasAOneLineDescriptionAndADocumentationUri)
{
    const std::vector<GstElementFactory *> factories = g2g_factories();
    // probe, view, materialize and tee in every build.
    ASSERT_GE(factories.size(), 4u);
    for (GstElementFactory *factory : factories) {
        const std::string name = GST_OBJECT_NAME(factory);
        SCOPED_TRACE(name);
        const char *description = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_DESCRIPTION);
        ASSERT_NE(description, nullptr);
        const std::string line = description;
        EXPECT_FALSE(line.empty());
        EXPECT_EQ(line.find('\n'), std::string::npos);
        EXPECT_LE(line.size(), 80u) << line;
        EXPECT_NE(line.back(), '.') << "one line, as GStreamer's elements write it: " << line;

        const char *uri = gst_element_factory_get_metadata(factory, GST_ELEMENT_METADATA_DOC_URI);
        ASSERT_NE(uri, nullptr);
        EXPECT_EQ(std::string(uri), std::string(G2G_DOC_URL) + name + ".md");

        for (const char *key :
             {GST_ELEMENT_METADATA_LONGNAME, GST_ELEMENT_METADATA_KLASS, GST_ELEMENT_METADATA_AUTHOR}) {
            const char *value = gst_element_factory_get_metadata(factory, key);
            ASSERT_NE(value, nullptr) << key;
            EXPECT_NE(std::string(value), "") << key;
        }
        gst_object_unref(factory);
    }
}

TEST(ElementMetadata, PluginNamesItsOrigin)
{
    GstPlugin *plugin = gst_registry_find_plugin(gst_registry_get(), "g2g");
    ASSERT_NE(plugin, nullptr);
    EXPECT_STREQ(gst_plugin_get_origin(plugin), G2G_PACKAGE_ORIGIN);
    EXPECT_STRNE(gst_plugin_get_origin(plugin), "Unknown package origin");
    gst_object_unref(plugin);
}

} // namespace
