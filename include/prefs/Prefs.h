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
 * Pointer parameters not marked nullable must not be NULL: as in
 * CoreFoundation, passing NULL there is a programming error (the
 * annotations let clang warn about it). Every other bad input (invalid
 * UTF-8, a value of the wrong kind, malformed or hostile documents, bad
 * application IDs, failing disks) is refused: the function returns its
 * failure value (NULL, false, 0, or for a Get function an empty value)
 * and records an error.
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
#define PREFS_VERSION_NUMBER 10300
/** The version of this header as text. */
#define PREFS_VERSION_STRING "1.3.0"

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
/** A UID: the reference to an object of a keyed archive (NSKeyedArchiver),
 *  0 ... 2^32-1. Since 1.3. */
typedef const struct PrefsOpaqueUID *PrefsUIDRef;
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
    kPrefsTypeError = 9,
    /** A UID (PrefsUIDRef), the object reference of a keyed archive.
     *  Since 1.3. */
    kPrefsTypeUID = 10
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
     *  PrefsPropertyListCreateXMLData), or one too large for any document
     *  the library writes (PREFS_MAX_DOCUMENT_SIZE). */
    kPrefsErrorUnrepresentable = 5,
    /** An application ID that is empty, longer than 249 bytes (its file
     *  name would not fit; for a current-host domain, with the host id),
     *  contains '/' or is "." or "..". Nothing was read or written. */
    kPrefsErrorInvalidApplicationID = 6,
    /** A file-system operation failed (the description names the
     *  operation, the path and the system's reason). */
    kPrefsErrorIO = 7,
    /** A stored domain file does not parse. It was kept, not emptied. */
    kPrefsErrorCorruptFile = 8,
    /** A managed (forced) value decides this key; the write was refused. */
    kPrefsErrorForcedValue = 9,
    /** The application's installed schema does not accept the value (its
     *  type, range or listed values); nothing was stored. Since 1.3. */
    kPrefsErrorSchemaViolation = 10,
    /** Anything else; a bug if you see it. */
    kPrefsErrorInternal = 100
} PrefsErrorCode;

/** The deepest nesting the library handles: at most 256 element levels
 *  below <plist>, where each array, dictionary, key and value counts. So
 *  256 nested containers whose innermost is empty, or 255 whose innermost
 *  holds values. Reading refuses deeper input with kPrefsErrorTooDeep,
 *  whatever its depth, without deep recursion; PrefsArrayCreate and
 *  PrefsDictionaryCreate refuse to build deeper values the same way, so
 *  every value can be written and read back. */
#define PREFS_MAX_NESTING 256

/** The largest XML property list the library writes, in bytes (64 MiB):
 *  PrefsPropertyListCreateXMLData and the domain files of synchronize.
 *  Every value is counted as written, a shared sub-value each time it
 *  occurs, so a value of a few bytes whose containers share elements level
 *  after level stands for as many bytes as its copies would take.
 *  PrefsArrayCreate and PrefsDictionaryCreate refuse to build a value that
 *  could not fit (kPrefsErrorUnrepresentable), writing refuses what does
 *  not fit, and PrefsCopyDescription refuses text longer than this. */
#define PREFS_MAX_DOCUMENT_SIZE 67108864

/** The most text one <string>, <key> or <data> element may hold, in bytes:
 *  the reader refuses more (libxml2's limit for a text node), so the
 *  writer refuses to write more, and a set refuses a value or key that
 *  would need more (for data: its base64 text with line breaks and
 *  indentation, as the domain file holds it). */
#define PREFS_MAX_TEXT_LENGTH 10000000

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
 *  string; free it with PrefsFree. NULL (kPrefsErrorUnrepresentable) when
 *  the text would be longer than PREFS_MAX_DOCUMENT_SIZE bytes. */
PREFS_EXPORT char *PREFS_NULLABLE PrefsCopyDescription(PrefsTypeRef object);

/** Frees memory this library returned as `char *`. NULL does nothing. */
PREFS_EXPORT void PrefsFree(void *PREFS_NULLABLE memory);

/* ------------------------------------------------------------------ */
/* Strings                                                            */
/* ------------------------------------------------------------------ */

/** A string from NUL-terminated UTF-8. NULL when `utf8` is not valid
 *  UTF-8 (kPrefsErrorInvalidArgument). */
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
 *  in memory; the XML format stores whole seconds, see below, so a domain
 *  file that holds a date with a fraction of a second, or a NaN real with a
 *  sign or payload, is written binary and keeps it). */
PREFS_EXPORT PrefsDateRef PrefsDateCreate(double unixTime);
/** The date as seconds since 1970-01-01T00:00:00Z. */
PREFS_EXPORT double PrefsDateGetUnixTime(PrefsDateRef date);

/* ------------------------------------------------------------------ */
/* UIDs                                                               */
/* ------------------------------------------------------------------ */

/** A UID (type kPrefsTypeUID) holding `value`: the object reference of a
 *  keyed archive (NSKeyedArchiver, CF$UID). Binary property lists hold it
 *  as a UID object, XML ones as a dictionary whose only key is "CF$UID"
 *  with an integer value, as CoreFoundation writes it; both read back as a
 *  UID, so a keyed archive survives any number of writes in either format.
 *  The old-style text of a UID is `<CFKeyedArchiverUID>{value = N}`.
 *  Create rule: release it with PrefsRelease. Never fails. Since 1.3.
 *  Thread-safe. */
PREFS_EXPORT PrefsUIDRef PrefsUIDCreate(uint32_t value);
/** The UID's value. A value of another type returns 0 and records
 *  kPrefsErrorInvalidArgument for PrefsCopyLastError. Since 1.3.
 *  Thread-safe. */
PREFS_EXPORT uint32_t PrefsUIDGetValue(PrefsUIDRef uid);

/* ------------------------------------------------------------------ */
/* Data                                                               */
/* ------------------------------------------------------------------ */

/** Data holding a copy of `length` bytes. `bytes` may be NULL when
 *  `length` is 0; NULL bytes with a non-zero length are refused (NULL,
 *  kPrefsErrorInvalidArgument). */
PREFS_EXPORT PrefsDataRef PREFS_NULLABLE PrefsDataCreate(const void *PREFS_NULLABLE bytes, size_t length);
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
 *  NULL or not a property list; NULL and kPrefsErrorTooDeep beyond
 *  PREFS_MAX_NESTING; NULL and kPrefsErrorUnrepresentable when its XML
 *  could not fit in PREFS_MAX_DOCUMENT_SIZE bytes. */
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
 *  is NULL or not a property list; NULL and kPrefsErrorTooDeep beyond
 *  PREFS_MAX_NESTING; NULL and kPrefsErrorUnrepresentable when its XML
 *  could not fit in PREFS_MAX_DOCUMENT_SIZE bytes. */
PREFS_EXPORT PrefsDictionaryRef PREFS_NULLABLE PrefsDictionaryCreate(const char *const PREFS_NULLABLE *PREFS_NULLABLE keys, const PrefsPropertyListRef PREFS_NULLABLE *PREFS_NULLABLE values, size_t count);
/** The number of keys. */
PREFS_EXPORT size_t PrefsDictionaryGetCount(PrefsDictionaryRef dictionary);
/** The value for `key`, borrowed (valid while the dictionary lives); NULL
 *  when absent, or when `key` is not UTF-8 (kPrefsErrorInvalidArgument).
 *  Keys compare byte by byte. */
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
 * (`<!DOCTYPE plist [...]>`), external entities and entity references
 * other than the five predefined ones are refused
 * (kPrefsErrorForbiddenMarkup); a document may use at most 4096 distinct
 * attribute names, namespace prefixes and URIs and processing-instruction
 * targets, and an element at most 8 attributes (kPrefsErrorMalformed);
 * nesting deeper than PREFS_MAX_NESTING is refused (kPrefsErrorTooDeep);
 * exactly one root value; the last of duplicate keys wins; integers are
 * decimal (leading zeros stay decimal) or 0x hexadecimal within
 * -2^63 ... 2^64-1, never clamped; reals accept nan, inf, infinity with an
 * optional sign; dates are exactly YYYY-MM-DDTHH:MM:SSZ; base64 may hold
 * whitespace and must be correctly padded. A single text node larger than
 * PREFS_MAX_TEXT_LENGTH (10,000,000) bytes is refused (libxml2's limit for
 * a text node), and so is an element carrying more than 8 attributes
 * (namespace declarations included; a property list needs one, `version`).
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
 * `&#13;`, base64 in lines of at most 76 columns, reals with 17
 * significant digits as Apple writes them (C's `%.17g`: 0.1 is
 * `0.10000000000000001`; `0.0`, `-0.0` for negative zero so that its sign
 * survives, `nan`, `+infinity`, `-infinity`), dates in whole seconds (a
 * fraction is truncated toward the
 * earlier second).
 *
 * Refused with kPrefsErrorUnrepresentable, never altered: a string or key
 * holding a character XML 1.0 cannot carry (U+0000-U+0008, U+000B, U+000C,
 * U+000E-U+001F, U+FFFE, U+FFFF), and a date that is not finite or lies
 * more than about a billion years from 1970 (dates are written as
 * CoreFoundation writes them, in the proleptic Gregorian calendar with a
 * year 0 and "%04d" years: distantPast, -62135769600, is
 * 0000-12-30T00:00:00Z, the year before 0 is -001). Write such values in
 * the binary format (a domain file holding one is binary). Refused the same way,
 * so that everything written can be read: a string, key or data element
 * whose text would exceed PREFS_MAX_TEXT_LENGTH, and a document that would
 * exceed PREFS_MAX_DOCUMENT_SIZE. The description names the path of the
 * offending value.
 */
PREFS_EXPORT PrefsDataRef PREFS_NULLABLE PrefsPropertyListCreateXMLData(PrefsPropertyListRef propertyList, PrefsErrorRef PREFS_NULLABLE *PREFS_NULLABLE outError);

/** The formats PrefsPropertyListCreateData writes (the numbers are
 *  CoreFoundation's, so code written for CFPropertyListFormat ports as it
 *  is). Since 1.1. */
typedef enum PrefsPropertyListFormat {
    /** An XML property list, as PrefsPropertyListCreateXMLData writes it. */
    kPrefsPropertyListXMLFormat_v1_0 = 100,
    /** A binary property list (`bplist00`), the format macOS writes
     *  preference files in by default. */
    kPrefsPropertyListBinaryFormat_v1_0 = 200
} PrefsPropertyListFormat;

/**
 * The value as a property list in `format` (+1 data).
 *
 * kPrefsPropertyListXMLFormat_v1_0 gives exactly what
 * PrefsPropertyListCreateXMLData gives, with its refusals.
 * kPrefsPropertyListBinaryFormat_v1_0 gives a `bplist00` file laid out as
 * CoreFoundation lays it out (top object first, each container's items
 * depth first, equal scalars written once, integers and references in the
 * fewest bytes), with dictionary keys sorted by their UTF-8 bytes so that
 * the same value always gives the same bytes; every value is representable
 * in it, so it refuses only nesting deeper than PREFS_MAX_NESTING
 * (kPrefsErrorTooDeep). Any other `format`, or a `propertyList` that is
 * not a value, is refused with kPrefsErrorInvalidArgument.
 *
 * On failure returns NULL and, when `outError` is not NULL, stores there a
 * +1 error. Thread-safe. Since 1.1 (symbol version LIBPREFS_1.1).
 */
PREFS_EXPORT PrefsDataRef PREFS_NULLABLE PrefsPropertyListCreateData(PrefsPropertyListRef propertyList, PrefsPropertyListFormat format, PrefsErrorRef PREFS_NULLABLE *PREFS_NULLABLE outError);

/* ------------------------------------------------------------------ */
/* Preferences                                                        */
/* ------------------------------------------------------------------ */

/*
 * Keys and application IDs are NUL-terminated UTF-8. These constants may
 * stand wherever an application, user or host name goes. They are compared
 * by content, so the literal strings work as well. Every C string the
 * library takes (keys, application IDs, user, host and domain names,
 * paths, arguments) must be valid UTF-8: anything else is refused with
 * kPrefsErrorInvalidArgument, never repaired, so two different byte
 * strings can never name one key or one domain.
 *
 * An application ID that is empty, longer than 249 bytes (so that
 * "<id>.plist" fits in a 255-byte file name), contains '/', or is "." or
 * ".." is refused with kPrefsErrorInvalidApplicationID: nothing is read or
 * written. A current-host domain's file name holds the host id too
 * ("<id>.<host id>.plist"): a longer ID is refused there, at the call.
 * "NSGlobalDomain", kPrefsAnyApplication and ".GlobalPreferences" (the
 * global domain's file name, as macOS's `defaults` accepts it) all name
 * the global domain; kPrefsCurrentApplication is the process's own name
 * (the last path component of argv[0]), as Foundation's
 * UserDefaults.standard takes it on Linux.
 *
 * The search list of PrefsCopyAppValue (first match wins):
 *   1. managed (forced) values: $PREFS_MANAGED_DIR/<user>/<app>.plist,
 *      then $PREFS_MANAGED_DIR/<app>.plist (default /etc/prefs/managed)
 *   2. the argument domain (-key value pairs of the command line)
 *      then the app's synced keys: the newest value any of the user's
 *      machines wrote to the sync folder (see PrefsAppSetKeySynced)
 *   3. app, current user, current host
 *   4. app, current user, any host
 *   5. each suite, newest first, current user (current host, any host)
 *   6. global, current user, current host
 *   7. global, current user, any host
 *   8. app, any user (current host, then any host)
 *   9. each suite, any user
 *  10. global, any user
 *  11. language domains (volatile domains named by the user's languages)
 *  12. the registration domain: the app's registrations, then those for
 *      every app (registered with kPrefsAnyApplication)
 * A read of AppleLanguages or AppleLocale that no domain answers returns
 * the user's languages (LANGUAGE, else LC_ALL, LC_MESSAGES, LANG:
 * fr_FR.UTF-8 is "fr-FR") and locale ("fr_FR").
 *
 * Files: current user, any host: $XDG_CONFIG_HOME/<id>.plist ($HOME/.config
 * when unset or relative); current host: $XDG_CONFIG_HOME/ByHost/
 * <id>.<host-id>.plist, the host id from /etc/machine-id; any user: the
 * same under $PREFS_SYSTEM_DIR (default /usr/local/etc; /etc in the Debian
 * packages); the global
 * domain's <id> is .GlobalPreferences. Files are written with mode 0600
 * (an existing file keeps its mode), directories created with 0700.
 *
 * Persistence: a set is visible to this process at once. It reaches the
 * disk at PrefsAppSynchronize/PrefsSynchronize, by itself within one
 * second (a background thread writes every pending change), and when the
 * process exits normally (an atexit handler). Writing locks the domain's
 * directory (flock, released by the kernel if the process dies), re-reads
 * the file, applies only this process's changed keys, writes a new file
 * beside it, flushes it, renames it over the old one (a symlinked file is
 * replaced at its target) and flushes the directory: two processes writing
 * different keys both keep them, and a reader never sees a torn file. The
 * temporary file of a writer killed half-way is removed by the next write
 * in that directory. A child of fork() keeps working; changes pending at
 * the fork are pending in both processes.
 *
 * Another process's synchronized changes are seen by this process's next
 * read, which costs no system call while nothing changed (writers bump a
 * counter that every process maps). Files written by other programs or
 * edited by hand are noticed within milliseconds by a library thread that
 * watches the preference directories with inotify, from one second after
 * the first read (at once with observers; where inotify is unavailable,
 * at the next synchronize).
 *
 * A stored file that does not parse is never overwritten or deleted: reads
 * see the domain as empty, and the next write moves the file aside to
 * "<file>.corrupt-<UTC time>" before writing a new one. The synchronize
 * call that moves it returns true (the changes are on disk) and still
 * records kPrefsErrorCorruptFile for PrefsCopyLastError, naming both files.
 *
 * userName is kPrefsCurrentUser, kPrefsAnyUser or the current user's login
 * name; hostName is kPrefsCurrentHost, kPrefsAnyHost or this machine's host
 * id. Anything else is refused with kPrefsErrorInvalidArgument.
 */
#define kPrefsAnyApplication "kPrefsAnyApplication"
#define kPrefsCurrentApplication "kPrefsCurrentApplication"
#define kPrefsAnyUser "kPrefsAnyUser"
#define kPrefsCurrentUser "kPrefsCurrentUser"
#define kPrefsAnyHost "kPrefsAnyHost"
#define kPrefsCurrentHost "kPrefsCurrentHost"

/** The first value for `key` along the app's search list (+1), or NULL
 *  when no layer has it (or the app ID is refused). Served from memory:
 *  no system call once the domains are loaded. The first read that meets
 *  a file of the search list that cannot be used (it does not parse, it
 *  cannot be read) returns what the other layers hold and records
 *  kPrefsErrorCorruptFile (or kPrefsErrorIO) naming the file, once;
 *  PrefsAppSynchronize lists every such file again. */
PREFS_EXPORT PrefsPropertyListRef PREFS_NULLABLE PrefsCopyAppValue(const char *key, const char *applicationID);

/** The layer of the search list a value came from (see
 *  PrefsCopyAppValueAndSource). The numbers are fixed. Since 1.2. */
typedef enum PrefsSource {
    /** No layer holds the key. */
    kPrefsSourceNone = 0,
    /** A managed (forced) value. */
    kPrefsSourceManaged = 1,
    /** The argument domain (the command line). */
    kPrefsSourceArguments = 2,
    /** The app's domain, current user, current host. */
    kPrefsSourceAppCurrentHost = 3,
    /** The app's domain, current user, any host. */
    kPrefsSourceApp = 4,
    /** A suite's domain, current user (either host). */
    kPrefsSourceSuite = 5,
    /** The global domain, current user, current host. */
    kPrefsSourceGlobalCurrentHost = 6,
    /** The global domain, current user, any host. */
    kPrefsSourceGlobal = 7,
    /** The app's, a suite's or the global domain of every user. */
    kPrefsSourceAnyUser = 8,
    /** A language domain, or the languages and locale derived from the
     *  environment. */
    kPrefsSourceLanguage = 9,
    /** The registration domain, or a Swift typed key's declared default. */
    kPrefsSourceRegistration = 10,
    /** The app's installed schema ($XDG_DATA_HOME/prefs/schemas/<id>.plist,
     *  then each of $XDG_DATA_DIRS). */
    kPrefsSourceSchema = 11,
    /** The app's synced value, from the sync folder (searched after the
     *  argument domain, before the app's own domains). Since 1.3. */
    kPrefsSourceSynced = 12
} PrefsSource;

/** The value PrefsCopyAppValue returns (+1, NULL when no layer has it), and
 *  the layer it came from in *outSource (kPrefsSourceNone when none). When
 *  `outDomainName` is not NULL, *outDomainName receives the layer's domain
 *  name (the app, suite or language ID, "NSGlobalDomain" for the global
 *  domain; free it with PrefsFree), or NULL when the layer has none (the
 *  arguments, derived languages) or no layer has the key. Refused as
 *  PrefsCopyAppValue is (NULL, kPrefsSourceNone). Since 1.2. Thread-safe. */
PREFS_EXPORT PrefsPropertyListRef PREFS_NULLABLE PrefsCopyAppValueAndSource(const char *key, const char *applicationID, PrefsSource *outSource, char *PREFS_NULLABLE *PREFS_NULLABLE outDomainName);

/** How the app's installed schema describes `key` (+1 dictionary, free with
 *  PrefsRelease), as `prefs schema describe` prints it: "Key", "Type" (the
 *  specifier's, e.g. "PSSliderSpecifier"), "File" (the schema file), and
 *  when present "ValueType" ("boolean", "integer", "real", "number",
 *  "string", "date", "data", "array", "dictionary" or "mixed"), "Title",
 *  "Description", "DefaultValue", "MinimumValue" and "MaximumValue" (reals),
 *  "Values" and "Titles" (what a list accepts), "Accepts" (a phrase such as
 *  "an integer from 8 to 72"). A key without "Accepts" is free: writes of
 *  it are not checked. NULL, with no error, when the app has no installed
 *  schema or it does not name `key`; NULL and kPrefsErrorCorruptFile when
 *  the schema does not parse; NULL and kPrefsErrorInvalidArgument or
 *  kPrefsErrorInvalidApplicationID for unusable arguments. Since 1.3.
 *  Thread-safe. */
PREFS_EXPORT PrefsDictionaryRef PREFS_NULLABLE PrefsCopyAppKeySchema(const char *key, const char *applicationID);

/** Every layer of the app's search list that holds `key`, as `prefs explain`
 *  shows it (+1 array, free with PrefsRelease; empty when no layer holds
 *  it): dictionaries with "Value", "Source" (an integer, a PrefsSource) and
 *  "Domain" (a string, absent when the layer has none). The first is what
 *  PrefsCopyAppValueAndSource returns; the others are shadowed by it. A
 *  value the installed schema does not accept has "Ignored" = true and
 *  "Reason" (what the key accepts): it is then shadowed by the schema's
 *  default, which comes first. NULL when the arguments are refused
 *  (kPrefsErrorInvalidArgument, kPrefsErrorInvalidApplicationID). Since
 *  1.3. Thread-safe. */
PREFS_EXPORT PrefsArrayRef PREFS_NULLABLE PrefsCopyAppValueSources(const char *key, const char *applicationID);

/** Sets `key` in the app's current-user, any-host domain (NULL value:
 *  removes it). This process sees it at once; see "Persistence" above.
 *  Refused, changing nothing (PrefsCopyLastError tells why): a key a
 *  managed value decides (kPrefsErrorForcedValue), a key or value XML
 *  cannot hold or that its domain file could not be read back with
 *  (kPrefsErrorUnrepresentable: see PrefsPropertyListCreateXMLData), a key
 *  that is not UTF-8, a refused application ID. */
PREFS_EXPORT void PrefsSetAppValue(const char *key, PrefsPropertyListRef PREFS_NULLABLE value, const char *applicationID);

/** Writes this process's pending changes of the app's domains and picks up
 *  other processes' changes to every file of its search list. true on
 *  success; false when a write failed (disk full, read-only directory:
 *  the old file stays intact and the changes stay pending for a later
 *  try), with the error for PrefsCopyLastError. */
PREFS_EXPORT bool PrefsAppSynchronize(const char *applicationID);

/** The value of `key` as a boolean: a boolean is itself; an integer is true
 *  when non-zero; a string YES/NO/true/false in any case, or a decimal
 *  integer in -2^63 ... 2^64-1 (true when non-zero), is valid. Anything else (or no value) returns false and sets
 *  *keyExistsAndHasValidFormat (when not NULL) to false. */
PREFS_EXPORT bool PrefsGetAppBooleanValue(const char *key, const char *applicationID, bool *PREFS_NULLABLE keyExistsAndHasValidFormat);

/** The value of `key` as an integer: an integer in the int64_t range is
 *  itself; a boolean is 1 or 0; a finite real in range is truncated toward
 *  zero; a string that is entirely a decimal integer (optional sign,
 *  surrounding spaces) in range is valid. Anything else (no clamping)
 *  returns 0 and sets *keyExistsAndHasValidFormat (when not NULL) false. */
PREFS_EXPORT int64_t PrefsGetAppIntegerValue(const char *key, const char *applicationID, bool *PREFS_NULLABLE keyExistsAndHasValidFormat);

/** Adds the suite `suiteID` to the app's search list (searched after the
 *  app's own domains, newest suite first). */
PREFS_EXPORT void PrefsAddSuitePreferencesToApp(const char *applicationID, const char *suiteID);

/** Removes the suite `suiteID` from the app's search list. */
PREFS_EXPORT void PrefsRemoveSuitePreferencesFromApp(const char *applicationID, const char *suiteID);

/** true when a managed (forced) value decides `key` for the app. */
PREFS_EXPORT bool PrefsAppValueIsForced(const char *key, const char *applicationID);

/** Declares `key` of the app synced (`synced` true) or no longer synced,
 *  on all of the user's machines: the declaration is written to this
 *  machine's file in the sync folder ($PREFS_SYNC_DIR, else the folder
 *  `prefs sync folder` chose, else $XDG_DATA_HOME/prefs/sync), which the
 *  user's file-synchronisation engine (Syncthing, ...) replicates. From
 *  then on every write of the key (PrefsSetAppValue, PrefsSetValue of the
 *  app's current-user, any-host domain, `prefs write`) goes to that file
 *  instead of the app's domain, and reads take the newest value any
 *  machine wrote (kPrefsSourceSynced), before the app's own domains. A key
 *  declared synced takes its local value along when no machine synced one
 *  yet; a key no longer synced keeps its synced value, in the app's own
 *  domain. Refused, changing nothing (false, PrefsCopyLastError tells
 *  why): an empty key or one over 64 bytes of UTF-8
 *  (kPrefsErrorInvalidArgument), an app past 1,024 synced keys or 1 MB of
 *  synced keys and values or this machine's file past 4 MiB
 *  (kPrefsErrorInvalidArgument), a key another machine holds at the very
 *  end of the clock's range, the year 9999, which no write can pass
 *  (kPrefsErrorInvalidArgument; a write of a synced value is refused so
 *  too), a folder that cannot be written (kPrefsErrorIO). Since 1.3.
 *  Thread-safe. */
PREFS_EXPORT bool PrefsAppSetKeySynced(const char *key, bool synced, const char *applicationID);

/** Whether `key` of the app syncs: declared by PrefsAppSetKeySynced or
 *  `prefs sync add` on any of the user's machines, by the app's installed
 *  schema (`Synced = YES`), or by a Swift typed key of this process;
 *  the newest declaration in the sync folder wins. false when refused.
 *  Since 1.3. Thread-safe. */
PREFS_EXPORT bool PrefsAppKeyIsSynced(const char *key, const char *applicationID);

/** The value of `key` in one stored domain only, no search list (+1), or
 *  NULL. */
PREFS_EXPORT PrefsPropertyListRef PREFS_NULLABLE PrefsCopyValue(const char *key, const char *applicationID, const char *userName, const char *hostName);

/** Sets (NULL value: removes) `key` in one stored domain only. Refused as
 *  PrefsSetAppValue is. */
PREFS_EXPORT void PrefsSetValue(const char *key, PrefsPropertyListRef PREFS_NULLABLE value, const char *applicationID, const char *userName, const char *hostName);

/** The values of `keysToFetch` (an array of strings; NULL: every key) in
 *  one stored domain, as a new dictionary; absent keys are left out. NULL
 *  only when refused. */
PREFS_EXPORT PrefsDictionaryRef PREFS_NULLABLE PrefsCopyMultiple(PrefsArrayRef PREFS_NULLABLE keysToFetch, const char *applicationID, const char *userName, const char *hostName);

/** Sets every key of `keysToSet` and removes every key named in
 *  `keysToRemove` (strings) in one stored domain, as one change: another
 *  process sees all of it or none of it. Either may be NULL. Refused
 *  whole, changing nothing, when any part is refused. */
PREFS_EXPORT void PrefsSetMultiple(PrefsDictionaryRef PREFS_NULLABLE keysToSet, PrefsArrayRef PREFS_NULLABLE keysToRemove, const char *applicationID, const char *userName, const char *hostName);

/** As PrefsAppSynchronize, for one stored domain. */
PREFS_EXPORT bool PrefsSynchronize(const char *applicationID, const char *userName, const char *hostName);

/** The keys of one stored domain, sorted by UTF-8 bytes (+1); an empty
 *  array when it has none; NULL only when refused. */
PREFS_EXPORT PrefsArrayRef PREFS_NULLABLE PrefsCopyKeyList(const char *applicationID, const char *userName, const char *hostName);

/** The applications with a stored domain for that user and host, sorted
 *  (+1). The global domain is not listed. NULL only when refused. */
PREFS_EXPORT PrefsArrayRef PREFS_NULLABLE PrefsCopyApplicationList(const char *userName, const char *hostName);

/** Removes one stored domain: its file goes away (a symlinked file's link
 *  itself, not the file it leads to), this process's pending changes of it
 *  with it, observers hear of every key whose read result changes, and
 *  PrefsCopyApplicationList no longer lists it. true when the domain no
 *  longer exists afterwards (also when it never did); false when the file
 *  could not be removed (kPrefsErrorIO: nothing changed) or the arguments
 *  were refused (kPrefsErrorInvalidArgument, kPrefsErrorInvalidApplicationID).
 *  Other processes see the domain gone at their next read. Since 1.1.
 *  Thread-safe. */
PREFS_EXPORT bool PrefsRemoveDomain(const char *applicationID, const char *userName, const char *hostName);

/** Every key visible along the app's search list, each with the value a
 *  read would return (+1). NULL only when refused. */
PREFS_EXPORT PrefsDictionaryRef PREFS_NULLABLE PrefsCopyAppDictionary(const char *applicationID);

/** Merges `defaults` into the app's registration domain (memory only,
 *  searched last). kPrefsAnyApplication registers for every app. */
PREFS_EXPORT void PrefsRegisterDefaults(PrefsDictionaryRef defaults, const char *applicationID);

/** Registers as defaults the dictionary in the plist file at `path`, or
 *  the defaults of a settings schema: a dictionary with a
 *  `PreferenceSpecifiers` array (the Settings.bundle Root.plist format),
 *  each specifier with `Key` and `DefaultValue` registering that default,
 *  and a `PSChildPaneSpecifier` with `File` = X also reading X.plist next
 *  to it, recursively, each file once. false and an error when a file
 *  cannot be read or parsed; nothing is registered then. */
PREFS_EXPORT bool PrefsRegisterDefaultsFromFile(const char *path, const char *applicationID, PrefsErrorRef PREFS_NULLABLE *PREFS_NULLABLE outError);

/** Replaces the argument domain with the `-key value` pairs of argv
 *  (argv[0], the program, is skipped; a value starting with '-' makes no
 *  pair). A value that parses as a property list (XML or old-style text
 *  such as "(1, 2)" or "{a = b;}") is stored parsed; anything else as a
 *  string. Without this call the domain comes from /proc/self/cmdline at
 *  first use. Refused whole, changing nothing (kPrefsErrorInvalidArgument),
 *  when an argument is not UTF-8. */
PREFS_EXPORT void PrefsSetArguments(int argc, const char *const PREFS_NULLABLE *PREFS_NULLABLE argv);

/** Sets the in-memory domain `domainName` (NULL values: removes it). A
 *  domain named by one of the user's languages ("fr-FR", "fr") is searched
 *  as a language domain; "NSArgumentDomain" and "NSRegistrationDomain"
 *  replace the argument domain and the registration domain for every app;
 *  other names are kept but not searched. */
PREFS_EXPORT void PrefsSetVolatileDomain(const char *domainName, PrefsDictionaryRef PREFS_NULLABLE values);

/** Removes the in-memory domain `domainName`. */
PREFS_EXPORT void PrefsRemoveVolatileDomain(const char *domainName);

/* ------------------------------------------------------------------ */
/* Observers                                                          */
/* ------------------------------------------------------------------ */

/** A registered observer; not a PrefsTypeRef (never retain or release it). */
typedef struct PrefsOpaqueObserver *PrefsObserverRef;

/** Called after a value the observed application's search list returns
 *  changes. `applicationID` is the canonical ID ("NSGlobalDomain" for the
 *  global domain, the process name for kPrefsCurrentApplication); `key` is
 *  the key that changed. Both are borrowed for the call only. */
typedef void (*PrefsObserverCallback)(const char *applicationID, const char *key, void *PREFS_NULLABLE context);

/**
 * Calls `callback` with `context` after the value a read of `key` (any key
 * when `key` is NULL) along the app's search list would return changes:
 * by this process (after the set), or by another process (after its
 * synchronize reaches the disk; files edited by hand are noticed too,
 * through inotify on the preference directories). A change that leaves
 * the visible value as it was is not reported.
 *
 * Callbacks run one at a time on a thread of the library's, never while
 * the library holds a lock, and may call back into the library. A process
 * that forks keeps working in the child (the threads start again there).
 * Returns NULL when refused (an invalid application ID, a NULL callback).
 * When the kernel gives no inotify instance (the user's are all in use),
 * the observer is still added and hears this process's changes and those
 * of other libprefs processes (followed through their change counter
 * every 100 ms), but not files written by other programs or by hand until
 * the next synchronize: the call then records kPrefsErrorIO saying so for
 * PrefsCopyLastError.
 */
PREFS_EXPORT PrefsObserverRef PREFS_NULLABLE PrefsAddObserver(const char *applicationID, const char *PREFS_NULLABLE key, PrefsObserverCallback PREFS_NULLABLE callback, void *PREFS_NULLABLE context);

/** Removes an observer and frees it. After this returns, its callback is
 *  not running and is never called again (when called from within that
 *  very callback, it is not called again after the callback returns).
 *  NULL does nothing. */
PREFS_EXPORT void PrefsRemoveObserver(PrefsObserverRef PREFS_NULLABLE observer);

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
