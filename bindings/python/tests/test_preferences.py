"""The mapping over the search list, one stored domain, managed (forced)
keys, errors as exceptions."""

from __future__ import annotations

import os
import plistlib
import subprocess
import sys
import warnings

import pytest
from conftest import CONFIG, MANAGED, SYSTEM, prefs_cmd, probe_value

import prefs


def managed(app: str, values: dict) -> None:
    """A managed file for everyone, as an administrator installs it."""
    with open(MANAGED / f"{app}.plist", "wb") as f:
        plistlib.dump(values, f)


def test_mapping_protocol(app):
    p = prefs.Preferences(app)
    assert "a" not in p and p.get("a") is None and p.get("a", 5) == 5
    with pytest.raises(KeyError):
        p["a"]
    p["a"] = 1
    p.update(b="two", c=[3])
    assert {"a", "b", "c"} <= set(p)
    assert len(p) == len(list(p))
    assert p.copy()["c"] == [3]
    del p["a"]
    assert "a" not in p
    with pytest.raises(KeyError):
        del p["a"]
    assert p.setdefault("d", 4) == 4 and p["d"] == 4
    assert p.pop("d") == 4 and "d" not in p


def test_written_values_reach_the_disk_at_synchronize(app):
    p = prefs.Preferences(app)
    p["FontSize"] = 14
    p.synchronize()
    with open(CONFIG / f"{app}.plist", "rb") as f:
        assert plistlib.load(f) == {"FontSize": 14}


def test_search_list_layers_and_source(app):
    p = prefs.Preferences(app)
    p.register({"Theme": "light", "Size": 10})
    assert p["Theme"] == "light"
    assert p.source("Theme") == prefs.Source(prefs.Layer.REGISTRATION, app)
    g = prefs.Preferences.global_domain()
    g[f"{app}.global"] = "everywhere"
    assert p[f"{app}.global"] == "everywhere"
    assert p.source(f"{app}.global") == prefs.Source(prefs.Layer.GLOBAL, "NSGlobalDomain")
    p["Theme"] = "dark"
    assert p["Theme"] == "dark"
    assert p.source("Theme").layer == prefs.Layer.APP
    del p["Theme"]
    # The registered default answers again.
    assert p["Theme"] == "light"
    assert p.source("nothing") is None
    del g[f"{app}.global"]


def test_suites(app):
    suite = f"{app}.suite"
    s = prefs.Preferences(suite)
    s["Shared"] = "from the suite"
    p = prefs.Preferences(app)
    assert "Shared" not in p
    p.add_suite(suite)
    assert p["Shared"] == "from the suite"
    assert p.source("Shared") == prefs.Source(prefs.Layer.SUITE, suite)
    p.remove_suite(suite)
    assert "Shared" not in p


def test_current_host_and_any_user_domains(app, probe):
    p = prefs.Preferences(app)
    p.current_host["Host"] = "this machine"
    p.current_host.synchronize()
    assert p["Host"] == "this machine"
    assert p.source("Host").layer == prefs.Layer.APP_CURRENT_HOST
    assert "Host" not in p.domain()
    assert list((CONFIG / "ByHost").glob(f"{app}.*.plist"))
    assert probe_value(probe, "get", app, "Host", "kPrefsCurrentUser", "kPrefsCurrentHost") == "this machine"
    assert prefs_cmd("-currentHost", "read", app, "Host").stdout == "this machine\n"

    p.any_user["Everyone"] = 1
    p.any_user.synchronize()
    assert (SYSTEM / f"{app}.plist").exists()
    assert p["Everyone"] == 1
    assert p.source("Everyone").layer == prefs.Layer.ANY_USER
    assert p.domain(prefs.ANY_USER, prefs.ANY_HOST).copy() == {"Everyone": 1}


def test_domain_update_is_one_change_and_remove(app):
    d = prefs.Domain(app)
    d.update({"a": 1, "b": 2})
    d.apply({"c": 3}, ["a"])
    assert d.copy() == {"b": 2, "c": 3}
    assert sorted(d) == ["b", "c"] and len(d) == 2
    with pytest.raises(TypeError, match="bad"):
        d.apply({"d": 4, "bad": object()})
    assert d.copy() == {"b": 2, "c": 3}
    d.synchronize()
    assert app in prefs.applications()
    d.remove()
    assert d.copy() == {}
    assert not (CONFIG / f"{app}.plist").exists()
    assert app not in prefs.applications()


def test_typed_getters_coerce_as_the_c_api(app):
    p = prefs.Preferences(app)
    p.update(yes="YES", n="42", f=3.9, b=True)
    assert p.get_bool("yes") is True
    assert p.get_int("n") == 42 and p.get_int("f") == 3 and p.get_int("b") == 1
    assert p.get_int("yes", -1) == -1 and p.get_bool("missing", True) is True


def test_forced_keys_are_refused_and_kept(app, probe):
    managed(app, {"Locked": "by the administrator", "Level": 3})
    p = prefs.Preferences(app)
    assert p["Locked"] == "by the administrator"
    assert p.is_forced("Locked") and not p.is_forced("Free")
    assert p.source("Locked") == prefs.Source(prefs.Layer.MANAGED, app)
    with pytest.raises(prefs.ForcedValueError) as caught:
        p["Locked"] = "mine"
    assert caught.value.code == 9 and caught.value.key == "Locked"
    assert isinstance(caught.value, prefs.Error)
    assert "Locked" in str(caught.value)
    with pytest.raises(prefs.ForcedValueError):
        del p["Locked"]
    with pytest.raises(prefs.ForcedValueError):
        p.domain().update({"Free": 1, "Level": 4})
    assert p["Locked"] == "by the administrator" and p["Level"] == 3
    p["Free"] = "mine"
    p.synchronize()
    assert p.domain().copy() == {"Free": "mine"}
    assert probe_value(probe, "app", app, "Locked") == "by the administrator"


@pytest.mark.parametrize("bad", ["", "a/b", ".", "..", "x" * 300])
def test_refused_application_ids(bad):
    p = prefs.Preferences(bad)
    with pytest.raises(prefs.InvalidApplicationIDError) as caught:
        p["k"] = 1
    assert caught.value.code == 6 and isinstance(caught.value, ValueError)
    with pytest.raises(prefs.InvalidApplicationIDError):
        p.get("k")


def test_application_id_must_be_text():
    with pytest.raises(TypeError):
        prefs.Preferences(b"com.example")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        prefs.Preferences("com.example\x00evil")


def test_a_corrupt_file_is_a_warning_and_kept(app):
    path = CONFIG / f"{app}.plist"
    path.write_bytes(b"<plist><dict><key>unclosed")
    p = prefs.Preferences(app)
    with pytest.warns(prefs.CorruptFileWarning) as caught:
        assert p.get("k") is None
    assert isinstance(caught[0].message.error, prefs.CorruptFileError)
    assert caught[0].message.error.code == 8
    assert path.read_bytes() == b"<plist><dict><key>unclosed"
    p["k"] = 1
    with pytest.warns(prefs.CorruptFileWarning, match="corrupt"):
        p.synchronize()
    aside = [f for f in os.listdir(CONFIG) if f.startswith(f"{app}.plist.corrupt-")]
    assert len(aside) == 1
    assert (CONFIG / aside[0]).read_bytes() == b"<plist><dict><key>unclosed"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert p["k"] == 1


def test_a_failing_write_raises_storage_error(app):
    # The domain's file name is taken by a directory: the write cannot
    # replace it (even as root), and the change stays pending.
    (CONFIG / f"{app}.plist").mkdir()
    p = prefs.Preferences(app)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", prefs.CorruptFileWarning)
        p["k"] = 1
        with pytest.raises(prefs.Error) as caught:
            p.synchronize()
        assert isinstance(caught.value, (prefs.StorageError, prefs.CorruptFileError))
        assert f"{app}.plist" in str(caught.value)
        assert p["k"] == 1
    (CONFIG / f"{app}.plist").rmdir()
    p.synchronize()
    assert (CONFIG / f"{app}.plist").is_file()


def test_error_hierarchy():
    assert issubclass(prefs.ForcedValueError, prefs.Error)
    assert issubclass(prefs.CorruptFileError, prefs.Error)
    assert issubclass(prefs.TooDeepError, prefs.LimitError)
    assert issubclass(prefs.LimitError, ValueError)
    assert issubclass(prefs.UnrepresentableError, ValueError)
    assert issubclass(prefs.MalformedError, ValueError)
    assert issubclass(prefs.StorageError, OSError)
    assert issubclass(prefs.LibraryNotFoundError, ImportError)


def test_argument_domain_from_sys_argv(app, tmp_path):
    # The interpreter's own options (-c, -m) are not preferences; the
    # program's -key value pairs are.
    script = tmp_path / "tool.py"
    script.write_text(
        "import prefs, sys\n"
        f"p = prefs.Preferences({app!r})\n"
        "print(p.get('c'), p.get('m'), p.get('Size'), p.source('Size').layer.name)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-u", str(script), "-Size", "12"], capture_output=True, text=True, env=env
    )
    assert done.stdout == "None None 12 ARGUMENTS\n", done.stderr
    done = subprocess.run(
        [sys.executable, "-c", f"import prefs; print('c' in prefs.Preferences({app!r}))"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.stdout == "False\n", done.stderr


def test_set_arguments(app):
    p = prefs.Preferences(app)
    try:
        prefs.set_arguments(["prog", "-Size", "12", "-List", "(1, 2)"])
        # Old-style text: "12" is a string, "(1, 2)" an array of strings.
        assert p["Size"] == "12" and p["List"] == ["1", "2"]
        assert p.source("Size") == prefs.Source(prefs.Layer.ARGUMENTS, None)
    finally:
        prefs.set_arguments(["pytest"])
    assert "Size" not in p


def test_the_installed_package_is_tested():
    site = os.environ.get("PREFS_TEST_SITE")
    if site is None:
        pytest.skip("not run by tests/run.sh (the package from the tree)")
    package = os.path.dirname(prefs.__file__)
    assert package == os.path.join(site, "prefs")
    assert os.path.exists(os.path.join(package, "py.typed"))
