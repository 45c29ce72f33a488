#!/bin/sh
# make_fixture.sh DIR [KEYS]: writes the KEYS-key domain (default 1,000)
# every contender reads.
#   DIR/com.example.bench.plist   XML property list (libprefs and Foundation read it)
#   DIR/bench.dconf               the same keys and values for `dconf load /bench/`
#   DIR/bench.ini                 the same keys and values for QSettings (IniFormat)
#   DIR/defaults.d/bench          the registration-domain stand-in for dconf
# Keys: FontName (string "Helvetica Neue"), FontSize (integer 14) and
# key0000 ... (KEYS - 2 of them; key0500 whatever the size), whose values
# cycle through string, integer, boolean, real.
set -eu
dir=$1
keys=${2:-1000}
case $keys in '' | *[!0-9]*) echo "make_fixture.sh: KEYS must be a number of at least 502" >&2; exit 2 ;; esac
[ "$keys" -ge 502 ] || { echo "make_fixture.sh: KEYS must be at least 502 (key0500 is read)" >&2; exit 2; }
mkdir -p "$dir/defaults.d"
awk -v plist="$dir/com.example.bench.plist" -v keyfile="$dir/bench.dconf" -v ini="$dir/bench.ini" -v n="$keys" 'BEGIN {
    print "<?xml version=\"1.0\" encoding=\"UTF-8\"?>" > plist
    print "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">" > plist
    print "<plist version=\"1.0\">\n<dict>" > plist
    print "\t<key>FontName</key>\n\t<string>Helvetica Neue</string>" > plist
    print "\t<key>FontSize</key>\n\t<integer>14</integer>" > plist
    print "[/]\nFontName='\''Helvetica Neue'\''\nFontSize=int64 14" > keyfile
    print "[General]\nFontName=Helvetica Neue\nFontSize=14" > ini
    for (i = 0; i < n - 2; i++) {
        k = sprintf("key%04d", i)
        if (i % 4 == 0) { x = "<string>value " i "</string>"; g = "'\''value " i "'\''"; q = "value " i }
        else if (i % 4 == 1) { x = "<integer>" i * 7 "</integer>"; g = "int64 " i * 7; q = i * 7 }
        else if (i % 4 == 2) { b = (i % 8 == 2) ? "true" : "false"; x = "<" b "/>"; g = b; q = b }
        else { x = "<real>" i ".5</real>"; g = i ".5"; q = i ".5" }
        print "\t<key>" k "</key>\n\t" x > plist
        print k "=" g > keyfile
        print k "=" q > ini
    }
    print "</dict>\n</plist>" > plist
}'
printf "[bench]\nRegisteredOnly='Registered value'\n" > "$dir/defaults.d/bench"
