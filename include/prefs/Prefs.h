/*
 * Prefs.h — the C interface of libprefs.
 *
 * libprefs stores user preferences as Apple-style XML property lists and
 * looks them up through the search list of CFPreferences/NSUserDefaults.
 * This header is the whole public contract; everything it does not name is
 * private and may change.
 *
 * Build:   cc app.c $(pkg-config --cflags --libs prefs)
 * Include: #include <prefs/Prefs.h>
 *
 * Ownership (the CoreFoundation rule)
 *   - A function whose name contains "Create" or "Copy" returns a new
 *     reference (+1). Release it with PrefsRelease(), or PrefsFree() for a
 *     returned char *.
 *   - A function whose name contains "Get" returns a borrowed value, valid
 *     while the object it came from lives. PrefsRetain() keeps it longer.
 *   - PrefsRelease(NULL) and PrefsFree(NULL) do nothing.
 *   - Memory this library returns must be freed by this library
 *     (PrefsFree), never by free(): do not mix allocators.
 *
 * Threads
 *   Every object is immutable once created and may be shared between
 *   threads freely. Every function is thread-safe.
 *
 * Errors
 *   A function with a trailing `PrefsErrorRef *outError` stores a +1 error
 *   there on failure when the pointer is not NULL (and leaves it untouched
 *   on success). Every function also records its outcome for
 *   PrefsCopyLastError(): the error of the latest call on this thread that
 *   failed or was refused, or NULL when that call succeeded.
 *
 * Unless marked nullable, pointer parameters must not be NULL. Passing NULL
 * where it is not allowed is refused: the function returns its failure
 * value (NULL, false, 0) and records kPrefsErrorInvalidArgument.
 */
#ifndef PREFS_PREFS_H
#define PREFS_PREFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Version                                                            */
/* ------------------------------------------------------------------ */

/** The version of this header: major * 10000 + minor * 100 + patch.
 *  A literal, so that Swift and the preprocessor can both read it. */
#define PREFS_VERSION_NUMBER 10000
/** The version of this header as text. */
#define PREFS_VERSION_STRING "1.0.0"

/* ------------------------------------------------------------------ */
/* Portability                                                        */
/* ------------------------------------------------------------------ */

#if defined(__GNUC__) && __GNUC__ >= 4
#  define PREFS_EXPORT __attribute__((visibility("default")))
#else
#  define PREFS_EXPORT
#endif

/* Nullability annotations are a clang extension. They let Swift import
 * non-null pointers as non-optional; other compilers see nothing. */
#if defined(__clang__)
#  define PREFS_NULLABLE _Nullable
#  define PREFS_NONNULL _Nonnull
#  define PREFS_ASSUME_NONNULL_BEGIN \
     _Pragma("clang diagnostic push") \
     _Pragma("clang diagnostic ignored \"-Wnullability-extension\"") \
     _Pragma("clang assume_nonnull begin")
#  define PREFS_ASSUME_NONNULL_END \
     _Pragma("clang assume_nonnull end") \
     _Pragma("clang diagnostic pop")
#else
#  define PREFS_NULLABLE
#  define PREFS_NONNULL
#  define PREFS_ASSUME_NONNULL_BEGIN
#  define PREFS_ASSUME_NONNULL_END
#endif

#ifdef __cplusplus
extern "C" {
#endif

PREFS_ASSUME_NONNULL_BEGIN

/* ------------------------------------------------------------------ */
/* Types                                                              */
/* ------------------------------------------------------------------ */

/** Any object of this library: a property-list value or an error. */
typedef const void *PrefsTypeRef;
/** Any property-list value. Every specific value reference below converts
 *  to it without a cast. */
typedef const void *PrefsPropertyListRef;

/** A UTF-8 string. */
typedef const struct PrefsOpaqueString *PrefsStringRef;
/** An integer (-2^63 ... 2^64-1) or a real (double). */
typedef const struct PrefsOpaqueNumber *PrefsNumberRef;
/** true or false. */
typedef const struct PrefsOpaqueBoolean *PrefsBooleanRef;
/** A point in time, seconds since 1970-01-01T00:00:00Z. */
typedef const struct PrefsOpaqueDate *PrefsDateRef;
/** A byte string. */
typedef const struct PrefsOpaqueData *PrefsDataRef;
/** An ordered list of values. */
typedef const struct PrefsOpaqueArray *PrefsArrayRef;
/** A map from UTF-8 string keys to values. */
typedef const struct PrefsOpaqueDictionary *PrefsDictionaryRef;
/** An error: a stable code and a description. */
typedef const struct PrefsOpaqueError *PrefsErrorRef;

/** The kind of an object. The numbers are fixed. */
typedef enum PrefsType {
    kPrefsTypeString = 1,
    kPrefsTypeInteger = 2,
    kPrefsTypeReal = 3,
    kPrefsTypeBoolean = 4,
    kPrefsTypeDate = 5,
    kPrefsTypeData = 6,
    kPrefsTypeArray = 7,
    kPrefsTypeDictionary = 8,
    /** Not a property list: an error object (PrefsErrorRef). */
    kPrefsTypeError = 9
} PrefsType;

/** Error codes. The numbers are fixed; new codes may be added in later
 *  versions, so treat an unknown code like kPrefsErrorInternal. */
typedef enum PrefsErrorCode {
    /** An argument was NULL where it may not be, or otherwise unusable
     *  (invalid UTF-8, a value of the wrong type). */
    kPrefsErrorInvalidArgument = 1,
    /** The input is not a property list: malformed XML, an unknown
     *  element, a key without a value, a bad integer, real, date or
     *  base64 text. The description names the problem and the line. */
    kPrefsErrorMalformed = 2,
    /** The input uses XML features a property list must not: DOCTYPE
     *  internal subsets, entity declarations, external entities, unknown
     *  entity references. Nothing named by the input is ever opened. */
    kPrefsErrorForbiddenMarkup = 3,
    /** Arrays and dictionaries nested deeper than PREFS_MAX_NESTING. */
    kPrefsErrorTooDeep = 4,
    /** A value that an XML property list cannot carry (see
     *  PrefsPropertyListCreateXMLData). */
    kPrefsErrorUnrepresentable = 5,
    /** An application ID that is empty, longer than 255 bytes, contains
     *  '/' or is "." or "..". Nothing was read or written. */
    kPrefsErrorInvalidApplicationID = 6,
    /** A file-system operation failed (the description names the
     *  operation, the path and the system's reason). */
    kPrefsErrorIO = 7,
    /** A stored domain file does not parse. It was kept, not emptied. */
    kPrefsErrorCorruptFile = 8,
    /** A managed (forced) value decides this key; the write was refused. */
    kPrefsErrorForcedValue = 9,
    /** Anything else; a bug if you see it. */
    kPrefsErrorInternal = 100
} PrefsErrorCode;

/** The deepest nesting of arrays and dictionaries the reader accepts
 *  (the <plist> wrapper does not count). Deeper input is refused with
 *  kPrefsErrorTooDeep, whatever its depth, without deep recursion. */
#define PREFS_MAX_NESTING 256

/* ------------------------------------------------------------------ */
/* Any object                                                         */
/* ------------------------------------------------------------------ */

/** Adds a reference to `object` and returns it. NULL gives NULL. */
PREFS_EXPORT PrefsTypeRef PREFS_NULLABLE PrefsRetain(PrefsTypeRef PREFS_NULLABLE object);

/** Drops a reference; the object is freed with its last one. NULL does
 *  nothing. */
PREFS_EXPORT void PrefsRelease(PrefsTypeRef PREFS_NULLABLE object);

/** The kind of `object`. */
PREFS_EXPORT PrefsType PrefsGetType(PrefsTypeRef object);

/** Deep equality. Strings and keys compare byte by byte (no Unicode
 *  normalisation); integer 1 and real 1.0 are not equal; NaN equals NaN;
 *  0.0 and -0.0 are equal. Two NULLs are equal; NULL and an object are
 *  not. */
PREFS_EXPORT bool PrefsEqual(PrefsTypeRef PREFS_NULLABLE a, PrefsTypeRef PREFS_NULLABLE b);

/** Human-readable text: the old-style (OpenStep) property-list form of a
 *  value, the description of an error. Returns a new NUL-terminated UTF-8
 *  string; free it with PrefsFree. */
PREFS_EXPORT char *PREFS_NULLABLE PrefsCopyDescription(PrefsTypeRef object);

/** Frees memory this library returned as `char *`. NULL does nothing. */
PREFS_EXPORT void PrefsFree(void *PREFS_NULLABLE memory);

/* ------------------------------------------------------------------ */
/* Strings                                                            */
/* ------------------------------------------------------------------ */

/** A string from NUL-terminated UTF-8. NULL when `utf8` is not valid
 *  UTF-8. */
PREFS_EXPORT PrefsStringRef PREFS_NULLABLE PrefsStringCreate(const char *utf8);

/** A string from `length` bytes of UTF-8 (embedded NULs allowed). NULL when
 *  the bytes are not valid UTF-8. `bytes` may be NULL when `length` is 0. */
PREFS_EXPORT PrefsStringRef PREFS_NULLABLE PrefsStringCreateWithBytes(const char *PREFS_NULLABLE bytes, size_t length);

/** The string's UTF-8 bytes followed by a NUL. Borrowed: valid while the
 *  string lives. A string holding a NUL byte reads short here; use
 *  PrefsStringGetLength for its full length. */
PREFS_EXPORT const char *PrefsStringGetCString(PrefsStringRef string);

/** The string's length in UTF-8 bytes, not counting the terminating NUL. */
PREFS_EXPORT size_t PrefsStringGetLength(PrefsStringRef string);

/* ------------------------------------------------------------------ */
/* Numbers                                                            */
/* ------------------------------------------------------------------ */

/** An integer (type kPrefsTypeInteger). */
PREFS_EXPORT PrefsNumberRef PrefsNumberCreateInt64(int64_t value);
/** An integer (type kPrefsTypeInteger) over the whole unsigned range. */
PREFS_EXPORT PrefsNumberRef PrefsNumberCreateUInt64(uint64_t value);
/** A real (type kPrefsTypeReal). NaN and the infinities are allowed. */
PREFS_EXPORT PrefsNumberRef PrefsNumberCreateDouble(double value);

/** Stores the number in `*out` and returns true when it is exactly
 *  representable as int64_t (a real must be integral and in range);
 *  otherwise returns false and leaves `*out` alone. */
PREFS_EXPORT bool PrefsNumberGetInt64(PrefsNumberRef number, int64_t *out);
/** As PrefsNumberGetInt64, for uint64_t. */
PREFS_EXPORT bool PrefsNumberGetUInt64(PrefsNumberRef number, uint64_t *out);
/** As PrefsNumberGetInt64, for double: an integer converts when the double
 *  holds it exactly (every integer up to 2^53 does). */
PREFS_EXPORT bool PrefsNumberGetDouble(PrefsNumberRef number, double *out);

/* ------------------------------------------------------------------ */
/* Booleans                                                           */
/* ------------------------------------------------------------------ */

/** A boolean. */
PREFS_EXPORT PrefsBooleanRef PrefsBooleanCreate(bool value);
/** The boolean's value. */
PREFS_EXPORT bool PrefsBooleanGetValue(PrefsBooleanRef boolean);

/* ------------------------------------------------------------------ */
/* Dates                                                              */
/* ------------------------------------------------------------------ */

/** A date, `unixTime` seconds after 1970-01-01T00:00:00Z (fractions kept
 *  in memory; the XML format stores whole seconds, see below). */
PREFS_EXPORT PrefsDateRef PrefsDateCreate(double unixTime);
/** The date as seconds since 1970-01-01T00:00:00Z. */
PREFS_EXPORT double PrefsDateGetUnixTime(PrefsDateRef date);

/* ------------------------------------------------------------------ */
/* Data                                                               */
/* ------------------------------------------------------------------ */

/** Data holding a copy of `length` bytes. `bytes` may be NULL when
 *  `length` is 0. */
PREFS_EXPORT PrefsDataRef PrefsDataCreate(const void *PREFS_NULLABLE bytes, size_t length);
/** The bytes. Borrowed: valid while the data lives; never NULL, even for
 *  empty data. */
PREFS_EXPORT const uint8_t *PrefsDataGetBytePtr(PrefsDataRef data);
/** The number of bytes. */
PREFS_EXPORT size_t PrefsDataGetLength(PrefsDataRef data);

/* ------------------------------------------------------------------ */
/* Arrays                                                             */
/* ------------------------------------------------------------------ */

/** An array of `count` values, each retained. `values` may be NULL when
 *  `count` is 0. NULL (and kPrefsErrorInvalidArgument) when an element is
 *  NULL or not a property list. */
PREFS_EXPORT PrefsArrayRef PREFS_NULLABLE PrefsArrayCreate(const PrefsPropertyListRef PREFS_NULLABLE *PREFS_NULLABLE values, size_t count);
/** The number of elements. */
PREFS_EXPORT size_t PrefsArrayGetCount(PrefsArrayRef array);
/** The element at `index`, borrowed (valid while the array lives); NULL
 *  when `index` is out of range. */
PREFS_EXPORT PrefsPropertyListRef PREFS_NULLABLE PrefsArrayGetValueAtIndex(PrefsArrayRef array, size_t index);

/* ------------------------------------------------------------------ */
/* Dictionaries                                                       */
/* ------------------------------------------------------------------ */

/** A dictionary of `count` pairs: NUL-terminated UTF-8 `keys[i]` maps to
 *  `values[i]` (retained). A later duplicate key wins. NULL (and
 *  kPrefsErrorInvalidArgument) when a key is NULL or not UTF-8, or a value
 *  is NULL or not a property list. */
PREFS_EXPORT PrefsDictionaryRef PREFS_NULLABLE PrefsDictionaryCreate(const char *const PREFS_NULLABLE *PREFS_NULLABLE keys, const PrefsPropertyListRef PREFS_NULLABLE *PREFS_NULLABLE values, size_t count);
/** The number of keys. */
PREFS_EXPORT size_t PrefsDictionaryGetCount(PrefsDictionaryRef dictionary);
/** The value for `key`, borrowed (valid while the dictionary lives); NULL
 *  when absent. Keys compare byte by byte. */
PREFS_EXPORT PrefsPropertyListRef PREFS_NULLABLE PrefsDictionaryGetValue(PrefsDictionaryRef dictionary, const char *key);
/** A new array of the keys as strings, sorted by their UTF-8 bytes. */
PREFS_EXPORT PrefsArrayRef PrefsDictionaryCopyKeys(PrefsDictionaryRef dictionary);

/* ------------------------------------------------------------------ */
/* Serialization                                                      */
/* ------------------------------------------------------------------ */

/**
 * Parses `length` bytes as a property list and returns the value (+1).
 *
 * Reads XML property lists in any encoding libxml2 knows (UTF-8 with or
 * without BOM, UTF-16 with BOM, ISO-8859-1, ...) and old-style (OpenStep)
 * text property lists: `{ key = value; list = (1, 2); bytes = <0102>; }`.
 *
 * XML reading is strict: no network, no DTD loading; internal DTD subsets
 * with entity declarations, external entities and entity references other
 * than the five predefined ones are refused (kPrefsErrorForbiddenMarkup);
 * nesting deeper than PREFS_MAX_NESTING is refused (kPrefsErrorTooDeep);
 * exactly one root value; the last of duplicate keys wins; integers are
 * decimal (leading zeros stay decimal) or 0x hexadecimal within
 * -2^63 ... 2^64-1, never clamped; reals accept nan, inf, infinity with an
 * optional sign; dates are exactly YYYY-MM-DDTHH:MM:SSZ; base64 may hold
 * whitespace and must be correctly padded. A single text node larger than
 * 10 MB is refused (libxml2's limit).
 *
 * On failure returns NULL and, when `outError` is not NULL, stores there a
 * +1 error whose description names the problem and its line.
 */
PREFS_EXPORT PrefsPropertyListRef PREFS_NULLABLE PrefsPropertyListCreateWithData(const void *PREFS_NULLABLE bytes, size_t length, PrefsErrorRef PREFS_NULLABLE *PREFS_NULLABLE outError);

/**
 * The value as an XML property list (+1), byte for byte as Apple's tools
 * write it: XML declaration, Apple's DOCTYPE, <plist version="1.0">, tab
 * indentation, <dict/> and <array/> for empty containers, dictionary keys
 * sorted by their UTF-8 bytes, `&` `<` `>` escaped and CR written as
 * `&#13;`, base64 in lines of at most 76 columns, reals in the shortest
 * form that reads back to the same double (`nan`, `+infinity`,
 * `-infinity`), dates in whole seconds (a fraction is truncated toward the
 * earlier second).
 *
 * Refused with kPrefsErrorUnrepresentable, never altered: a string or key
 * holding a character XML 1.0 cannot carry (U+0000-U+0008, U+000B, U+000C,
 * U+000E-U+001F, U+FFFE, U+FFFF), and a date outside the years 0001-9999
 * or not finite. Store such bytes as data instead. The description names
 * the path of the offending value.
 */
PREFS_EXPORT PrefsDataRef PREFS_NULLABLE PrefsPropertyListCreateXMLData(PrefsPropertyListRef propertyList, PrefsErrorRef PREFS_NULLABLE *PREFS_NULLABLE outError);

/* ------------------------------------------------------------------ */
/* Errors                                                             */
/* ------------------------------------------------------------------ */

/** The error of the latest call on this thread that failed or was
 *  refused (+1), or NULL when that call succeeded. Calls of PrefsRetain,
 *  PrefsRelease, PrefsFree and the Error functions themselves do not
 *  change it. */
PREFS_EXPORT PrefsErrorRef PREFS_NULLABLE PrefsCopyLastError(void);

/** The error's stable code, one of PrefsErrorCode. */
PREFS_EXPORT PrefsErrorCode PrefsErrorGetCode(PrefsErrorRef error);

/** The error's description: what failed and where (a line number for
 *  parse errors, a path for file errors). For people, not for comparison:
 *  the wording may change. A new string; free it with PrefsFree. */
PREFS_EXPORT char *PREFS_NULLABLE PrefsErrorCopyDescription(PrefsErrorRef error);

/* ------------------------------------------------------------------ */
/* Version                                                            */
/* ------------------------------------------------------------------ */

/** The version of the library that is running, as PREFS_VERSION_NUMBER.
 *  Compare it with PREFS_VERSION_NUMBER to detect a header/library
 *  mismatch. */
PREFS_EXPORT int PrefsGetVersionNumber(void);

PREFS_ASSUME_NONNULL_END

#ifdef __cplusplus
}
#endif

#endif /* PREFS_PREFS_H */
