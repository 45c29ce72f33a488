/*
 * dlclose_check.c — a program that loads libprefs with dlopen (it is not
 * linked against it), uses it so that its threads start (the background
 * writer, observer delivery, the directory watcher), closes it with
 * dlclose, and lives on past the moment those threads wake. The library
 * is linked with -z nodelete, so dlclose leaves it loaded: without that,
 * the threads would run unmapped code and the program would crash.
 *
 *   dlclose_check <path of libprefs.so.1>
 *
 * Run with XDG_CONFIG_HOME and friends pointing at a scratch directory.
 */
#define _POSIX_C_SOURCE 200809L

#include <prefs/Prefs.h>

#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef PrefsNumberRef (*number_create_fn)(int64_t);
typedef void (*set_app_value_fn)(const char *, PrefsPropertyListRef, const char *);
typedef PrefsPropertyListRef (*copy_app_value_fn)(const char *, const char *);
typedef PrefsObserverRef (*add_observer_fn)(const char *, const char *, PrefsObserverCallback, void *);
typedef void (*remove_observer_fn)(PrefsObserverRef);
typedef void (*release_fn)(PrefsTypeRef);

static void on_change(const char *app, const char *key, void *context)
{
    (void)app;
    (void)key;
    (void)context;
}

int main(int argc, char **argv)
{
    void *lib;
    number_create_fn number_create;
    set_app_value_fn set_app_value;
    copy_app_value_fn copy_app_value;
    add_observer_fn add_observer;
    remove_observer_fn remove_observer;
    release_fn release;
    PrefsNumberRef n;
    PrefsObserverRef observer;
    struct timespec wait = {2, 500000000};

    if (argc != 2) {
        fprintf(stderr, "usage: %s <libprefs.so.1>\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "dlopen: %s\n", dlerror());
        return 1;
    }
    /* Through a union: ISO C has no conversion from void * to a function pointer. */
    {
        union {
            void *p;
            number_create_fn f;
        } a;
        union {
            void *p;
            set_app_value_fn f;
        } b;
        union {
            void *p;
            copy_app_value_fn f;
        } c;
        union {
            void *p;
            add_observer_fn f;
        } d;
        union {
            void *p;
            release_fn f;
        } e;
        union {
            void *p;
            remove_observer_fn f;
        } g;
        a.p = dlsym(lib, "PrefsNumberCreateInt64");
        b.p = dlsym(lib, "PrefsSetAppValue");
        c.p = dlsym(lib, "PrefsCopyAppValue");
        d.p = dlsym(lib, "PrefsAddObserver");
        e.p = dlsym(lib, "PrefsRelease");
        g.p = dlsym(lib, "PrefsRemoveObserver");
        if (!a.p || !b.p || !c.p || !d.p || !e.p || !g.p) {
            fprintf(stderr, "dlsym: a function is missing\n");
            return 1;
        }
        number_create = a.f;
        set_app_value = b.f;
        copy_app_value = c.f;
        add_observer = d.f;
        release = e.f;
        remove_observer = g.f;
    }
    n = number_create(1);
    set_app_value("k", n, "com.example.dlclose"); /* the writer wakes in a second */
    release(n);
    release(copy_app_value("k", "com.example.dlclose"));
    /* The observer's delivery thread and the file watcher keep running
     * after the observer is removed. */
    observer = add_observer("com.example.dlclose", NULL, on_change, NULL);
    if (observer == NULL) {
        fprintf(stderr, "PrefsAddObserver failed\n");
        return 1;
    }
    remove_observer(observer);
    if (dlclose(lib) != 0) {
        fprintf(stderr, "dlclose: %s\n", dlerror());
        return 1;
    }
    nanosleep(&wait, NULL); /* the library's threads wake meanwhile */
    if (dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD) == NULL) {
        fprintf(stderr, "dlclose unloaded the library (it must not be unloadable)\n");
        return 1;
    }
    printf("dlclose_check: the library stayed loaded and its threads ran\n");
    return 0;
}
