// The Widgets layer grows here; this unit keeps the library non-empty until then.
namespace zeus {
int uiLayerVersion() {
    return 1;
}
}  // namespace zeus
