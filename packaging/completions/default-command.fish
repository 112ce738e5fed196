
# Added by cardline's Makefile (packaging/completions/default-command.fish) after the script
# argument-parser generates: `enter` is cardline's default subcommand, so options typed with
# no subcommand complete as the prompt's (`cardline --networks vi<Tab>` offers what `cardline
# enter --networks vi<Tab>` does); the generated script alone offers nothing there.
function __cardline_options_first
    set -l tokens (__cardline_tokens -pc)
    if test (count $tokens) -ge 2
        string match -q -- '-*' $tokens[2]
    else
        string match -q -- '-*' (commandline -ct)
    end
end
function __cardline_as_enter
    set -l tokens (__cardline_tokens -pc)
    complete -C (string join ' ' -- (string escape -- $tokens[1] enter $tokens[2..]) (commandline -ct))
end
complete -c 'cardline' -n '__cardline_options_first' -fka '(__cardline_as_enter)'
