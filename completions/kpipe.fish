# kpipe.fish - fish completion for kpipe: commands, options, variant names,
# formats, targets, and files.  Installed as
# share/fish/vendor_completions.d/kpipe.fish.
# Nothing here is a copy: the commands, each command's options and the
# values they take (variant names, targets, formats) come from kpipe itself
# when fish loads this file, through its hidden --list-commands and
# --list-options CMD (src/cli/main.c), as clang-tidy's completion asks
# --list-checks.  tests/cli/install.sh and tests/cli/registry.sh check it.

set -l commands
set -l summaries
for line in (kpipe --list-commands 2>/dev/null)
    set -l f (string split \t -- $line)
    set -a commands $f[1]
    set -a summaries $f[2]
end

complete -c kpipe -f
for i in (seq (count $commands))
    complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -a $commands[$i] -d $summaries[$i]
end
complete -c kpipe -n "not __fish_seen_subcommand_from $commands" -l version -d 'print the versions'
complete -c kpipe -l help -d 'show the help'

# sources and directories
complete -c kpipe -n "__fish_seen_subcommand_from analyze rewrite tune validate" -F

# each command's options: NAME ALIAS VALUE SUMMARY lines
for cmd in $commands
    for line in (kpipe --list-options $cmd 2>/dev/null)
        set -l f (string split \t -- $line)
        set -l spec
        for n in $f[1] $f[2]
            switch $n
                case - # no alias
                case '--*'
                    set -a spec -l (string sub -s 3 -- $n)
                case '*'
                    set -a spec -s (string sub -s 2 -- $n)
            end
        end
        set -l v (string replace -r '\.\.\.$' '' -- $f[3])
        switch $v
            case -
            case dir
                set -a spec -x -a '(__fish_complete_directories)'
            case file json
                set -a spec -r -F
            case text
                set -a spec -x
            case '{*}'
                set -a spec -x -a (string trim -c '{}' -- $v)
        end
        complete -c kpipe -n "__fish_seen_subcommand_from $cmd" $spec -d $f[4]
    end
end
