/*
 * test_binary.c — binary property lists through the C API:
 * PrefsPropertyListCreateWithData reads what Python's plistlib writes and
 * refuses damaged files; PrefsPropertyListCreateData writes XML exactly as
 * PrefsPropertyListCreateXMLData and binary files byte for byte as plistlib
 * lays them out, and refuses unknown formats.
 */
#define _POSIX_C_SOURCE 200809L

#include <prefs/Prefs.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "support.h"

/* plistlib.dumps({'a': 1, 'b': 'x', 'c': [True, 2.5]}, fmt=FMT_BINARY) */
static const uint8_t plistlib_file[] = {
    0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xd3, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x51,
    0x61, 0x51, 0x62, 0x51, 0x63, 0x10, 0x01, 0x51, 0x78, 0xa2, 0x07, 0x08, 0x09, 0x23, 0x40, 0x04,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x08, 0x0f, 0x11, 0x13, 0x15, 0x17, 0x19, 0x1c, 0x1d, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x26};

/* The value plistlib_file holds, built through the API (+1). */
static PrefsDictionaryRef expected_value(void)
{
    PrefsPropertyListRef items[2] = {PrefsBooleanCreate(true), PrefsNumberCreateDouble(2.5)};
    PrefsArrayRef array = PrefsArrayCreate(items, 2);
    const char *keys[3] = {"a", "b", "c"};
    PrefsPropertyListRef values[3] = {PrefsNumberCreateInt64(1), PrefsStringCreate("x"), array};
    PrefsDictionaryRef dict = PrefsDictionaryCreate(keys, values, 3);
    PrefsRelease(items[0]);
    PrefsRelease(items[1]);
    for (int i = 0; i < 3; i++)
        PrefsRelease(values[i]);
    return dict;
}

static void test_reading(void)
{
    PrefsErrorRef err = NULL;
    PrefsPropertyListRef v = PrefsPropertyListCreateWithData(plistlib_file, sizeof plistlib_file, &err);
    PrefsDictionaryRef want = expected_value();
    CHECK(v != NULL && err == NULL);
    CHECK(v != NULL && PrefsEqual(v, want));
    PrefsRelease(v);
    PrefsRelease(want);

    /* Every truncation of the file that keeps "bplist" is refused as
       malformed, never read (shorter ones are old-style words). */
    for (size_t n = 6; n < sizeof plistlib_file; n++) {
        err = NULL;
        v = PrefsPropertyListCreateWithData(plistlib_file, n, &err);
        CHECKF(v == NULL, "a file cut to %zu bytes is refused", n);
        CHECKF(err != NULL && PrefsErrorGetCode(err) == kPrefsErrorMalformed, "cut to %zu: malformed", n);
        PrefsRelease(v);
        if (err)
            PrefsRelease(err);
    }

    /* A reference to an object that is not there. */
    uint8_t broken[sizeof plistlib_file];
    memcpy(broken, plistlib_file, sizeof broken);
    broken[9] = 0x40;
    err = NULL;
    v = PrefsPropertyListCreateWithData(broken, sizeof broken, &err);
    CHECK(v == NULL);
    CHECK_ERROR(err, kPrefsErrorMalformed, "refers to object 64", "a reference past the objects");
    PrefsRelease(err);
}

static void test_writing(void)
{
    PrefsDictionaryRef value = expected_value();
    PrefsErrorRef err = NULL;

    PrefsDataRef binary = PrefsPropertyListCreateData(value, kPrefsPropertyListBinaryFormat_v1_0, &err);
    CHECK(binary != NULL && err == NULL);
    if (binary) {
        CHECK(PrefsDataGetLength(binary) == sizeof plistlib_file);
        CHECK(PrefsDataGetLength(binary) == sizeof plistlib_file &&
              memcmp(PrefsDataGetBytePtr(binary), plistlib_file, sizeof plistlib_file) == 0);
    }
    PrefsRelease(binary);

    PrefsDataRef xml = PrefsPropertyListCreateData(value, kPrefsPropertyListXMLFormat_v1_0, NULL);
    PrefsDataRef xml_too = PrefsPropertyListCreateXMLData(value, NULL);
    CHECK(xml != NULL && xml_too != NULL && PrefsEqual(xml, xml_too));
    PrefsRelease(xml);
    PrefsRelease(xml_too);

    err = NULL;
    PrefsDataRef none = PrefsPropertyListCreateData(value, (PrefsPropertyListFormat)1, &err);
    CHECK(none == NULL);
    CHECK_ERROR(err, kPrefsErrorInvalidArgument, "not a property-list format", "format 1 (OpenStep) refused");
    PrefsRelease(err);
    PrefsRelease(value);

    /* A string XML cannot carry is written in binary, and reads back. */
    PrefsStringRef control = PrefsStringCreate("bell \a");
    binary = PrefsPropertyListCreateData(control, kPrefsPropertyListBinaryFormat_v1_0, NULL);
    CHECK(binary != NULL);
    if (binary) {
        PrefsPropertyListRef back =
            PrefsPropertyListCreateWithData(PrefsDataGetBytePtr(binary), PrefsDataGetLength(binary), NULL);
        CHECK(back != NULL && PrefsEqual(back, control));
        PrefsRelease(back);
    }
    PrefsRelease(binary);
    PrefsRelease(control);
}

int main(void)
{
    test_reading();
    test_writing();
    return CHECK_FINISH();
}
