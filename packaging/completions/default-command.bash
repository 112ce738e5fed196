
# Added by cardline's Makefile (packaging/completions/default-command.bash) after the script
# argument-parser generates: `enter` is cardline's default subcommand, so options typed with
# no subcommand complete as the prompt's (`cardline --networks vi<Tab>` as `cardline enter
# --networks vi<Tab>`); the generated script alone would offer subcommand names there.
_cardline_default_command() {
    if [[ ${COMP_WORDS[1]} == -* ]]; then
        COMP_WORDS=("${COMP_WORDS[0]}" enter "${COMP_WORDS[@]:1}")
        COMP_CWORD=$((COMP_CWORD + 1))
        COMP_LINE="${COMP_WORDS[0]} enter${COMP_LINE#"${COMP_WORDS[0]}"}"
        COMP_POINT=$((COMP_POINT + 6))
    fi
    _cardline "${1}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
}
complete -o filenames -F _cardline_default_command cardline
