package dev.svc.sdk;

/** The SDK's version, from the jar's manifest; {@code dev} when running from classes (tests). */
final class SdkVersion {
    static final String VERSION = versionOf();

    private SdkVersion() {}

    private static String versionOf() {
        String v = SdkVersion.class.getPackage().getImplementationVersion();
        return v == null ? "dev" : v;
    }
}
