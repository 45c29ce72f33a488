# bash completion for prefs (and its libexec name, defaults): commands,
# flags, domains (`prefs domains`) and keys (`prefs read <domain>`).
# Installed as $(DATAROOTDIR)/bash-completion/completions/prefs.

_prefs_domains() {
    local IFS=$'\n'
    # `prefs domains` prints "a, b, c"; names with ", " in them are not IDs.
    printf '%s\n' -g NSGlobalDomain $("$1" domains 2>/dev/null | sed 's/, /\n/g')
}

_prefs_keys() {
    # The top-level keys of the domain: lines `    Key = ...` of `read`.
    "$1" read "$2" 2>/dev/null | sed -n 's/^    \("\{0,1\}\)\([^" =]*\)\1 = .*/\2/p'
}

_prefs() {
    local cur prev cmd i=1 words cword
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    local prog=${COMP_WORDS[0]}
    local commands="read read-type write rename delete import export domains find watch profile explain schema ui convert help --version"
    while [[ ${COMP_WORDS[i]} == -currentHost || ${COMP_WORDS[i]} == -host ]]; do
        [[ ${COMP_WORDS[i]} == -host ]] && i=$((i + 1))
        i=$((i + 1))
    done
    if [[ $COMP_CWORD -eq $i ]]; then
        local flags=""
        [[ $i -eq 1 ]] && flags="-currentHost -host"
        COMPREPLY=($(compgen -W "$commands $flags" -- "$cur"))
        return
    fi
    [[ $prev == -host ]] && { COMPREPLY=($(compgen -W "$(hostname)" -- "$cur")); return; }
    cmd=${COMP_WORDS[i]}
    local n=$((COMP_CWORD - i))
    local IFS=$'\n'
    case $cmd in
    read | read-type | write | rename | delete | export | import | watch | explain | ui)
        if [[ $n -eq 1 ]]; then
            if [[ $cur == /* ]]; then
                COMPREPLY=($(compgen -f -- "$cur"))
            else
                COMPREPLY=($(compgen -W "$(_prefs_domains "$prog")" -- "$cur"))
            fi
        elif [[ $n -eq 2 && $cmd != import && $cmd != export && $cmd != ui ]]; then
            COMPREPLY=($(compgen -W "$(_prefs_keys "$prog" "${COMP_WORDS[i + 1]}")" -- "$cur"))
        elif [[ $cmd == write && $n -eq 3 ]]; then
            COMPREPLY=($(compgen -W $'-string\n-data\n-int\n-integer\n-float\n-bool\n-boolean\n-date\n-array\n-array-add\n-dict\n-dict-add' -- "$cur"))
        elif [[ $cmd == export && $prev == -format ]]; then
            COMPREPLY=($(compgen -W $'xml1\nbinary1' -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        ;;
    profile)
        [[ $n -eq 1 ]] && COMPREPLY=($(compgen -W $'install\nremove\nlist' -- "$cur")) ||
            COMPREPLY=($(compgen -f -- "$cur"))
        ;;
    schema)
        [[ $n -eq 1 ]] && COMPREPLY=($(compgen -W $'show\ncheck\nc\nswift' -- "$cur")) ||
            COMPREPLY=($(compgen -f -- "$cur"))
        ;;
    convert)
        if [[ $prev == -convert ]]; then
            COMPREPLY=($(compgen -W $'xml1\nbinary1' -- "$cur"))
        elif [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W $'-lint\n-convert\n-o\n-p' -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        ;;
    esac
}
complete -F _prefs prefs defaults
