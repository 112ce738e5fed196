
# Added by cardline's Makefile (packaging/completions/default-command.zsh) in place of the
# generated script's last lines: `enter` is cardline's default subcommand, so options typed
# with no subcommand complete as the prompt's (`cardline --networks vi<Tab>` as `cardline
# enter --networks vi<Tab>`); the generated script alone would offer subcommand names there.
_cardline_default_command() {
    if [[ ${words[2]} == -* ]]; then
        words=("${words[1]}" enter "${(@)words[2,-1]}")
        (( CURRENT++ ))
    fi
    _cardline "${@}"
}

if [[ "${funcstack[1]}" = _cardline ]]; then
    _cardline_default_command "${@}"
else
    compdef _cardline_default_command cardline
fi
