// SPDX-License-Identifier: LGPL-2.1-or-later
// Cross-compiled with mingw-w64 against its real d3d11.h (tests/meson.build: d3d11-adapter-mingw):
// g2g/d3d11-texture.h builds for Windows without GStreamer, and frame_of does what its comment
// says on a texture that answers GetDesc and GetDevice as D3D11's do. Built, not run: there is
// no Windows here.
#include <g2g/d3d11-texture.h>

#include <cstddef>

namespace {

// A texture array of 4 slices x 3 mips, 1920x1080 NV12, on `device`: the calls frame_of makes,
// counted; the rest of ID3D11Texture2D as D3D11 declares it.
class StandInTexture final : public ID3D11Texture2D {
public:
    explicit StandInTexture(ID3D11Device *device) : device_(device) {}

    HRESULT STDMETHODCALLTYPE QueryInterface(REFIID, void **object) override
    {
        *object = nullptr;
        return E_NOINTERFACE;
    }
    ULONG STDMETHODCALLTYPE AddRef() override { return ++references; }
    ULONG STDMETHODCALLTYPE Release() override { return --references; }
    void STDMETHODCALLTYPE GetDevice(ID3D11Device **device) override
    {
        if (device_)
            device_->AddRef(); // as D3D11's does
        *device = device_;
    }
    HRESULT STDMETHODCALLTYPE GetPrivateData(REFGUID, UINT *, void *) override { return E_NOTIMPL; }
    HRESULT STDMETHODCALLTYPE SetPrivateData(REFGUID, UINT, const void *) override { return E_NOTIMPL; }
    HRESULT STDMETHODCALLTYPE SetPrivateDataInterface(REFGUID, const IUnknown *) override
    {
        return E_NOTIMPL;
    }
    void STDMETHODCALLTYPE GetType(D3D11_RESOURCE_DIMENSION *dimension) override
    {
        *dimension = D3D11_RESOURCE_DIMENSION_TEXTURE2D;
    }
    void STDMETHODCALLTYPE SetEvictionPriority(UINT) override {}
    UINT STDMETHODCALLTYPE GetEvictionPriority() override { return 0; }
    void STDMETHODCALLTYPE GetDesc(D3D11_TEXTURE2D_DESC *desc) override
    {
        *desc = {};
        desc->Width = 1920;
        desc->Height = 1080;
        desc->MipLevels = 3;
        desc->ArraySize = 4;
        desc->Format = DXGI_FORMAT_NV12;
        desc->SampleDesc.Count = 1;
        desc->BindFlags = D3D11_BIND_DECODER;
    }

    ULONG references = 1;

private:
    ID3D11Device *device_;
};

} // namespace

// The payload of slice 2, mip 1 (subresource 1 + 2 x 3 = 7) is 960x540 NV12 on the device, the
// texture AddRef'd once and Released by the frame's release; subresource 12 is past the array.
extern "C" int g2g_d3d11_adapter_check(ID3D11Device *device)
{
    StandInTexture texture(device);
    g2g::d3d11::Frame frame;
    bool ok = g2g::d3d11::frame_of(&texture, 7, frame) && frame.payload.texture == &texture &&
              frame.payload.subresource == 7 && frame.payload.width == 960 && frame.payload.height == 540 &&
              frame.payload.dxgi_format == DXGI_FORMAT_NV12 && frame.payload.device == device &&
              texture.references == 2 && frame.user_data == &texture;
    frame.release(frame.user_data);
    ok = ok && texture.references == 1;
    g2g::d3d11::Frame refused;
    ok = ok && !g2g::d3d11::frame_of(&texture, 12, refused) && texture.references == 1 &&
         !g2g::d3d11::frame_of(nullptr, 0, refused);
    return ok;
}

static_assert(offsetof(G2gD3D11Texture, texture) == 0, "the payload is plain C");
