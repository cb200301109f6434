# tmux-mcp: lends this interactive zsh to one tmux MCP server for authored runs (tmux_run).
# Sourced through the one-line setup file the server writes, never typed by hand. It installs a
# zle -F handler on a private channel and starts the helper, the shell's child that runs each
# script and waits on it natively. Nothing else: no key bindings, hooks, traps or prompt changes.
# After each run it shows one notice under the prompt (zle's message area, never the line or the
# history) when the line is idle and empty, else drops it; `_tmux_mcp_quiet=1` set for the
# `source` (what `tmux-mcp enroll --quiet` prints) turns the notices off.
# A refusal prints one line, returns 1 and leaves the shell as it was.
# Arguments: channel socket, invitation token, proof file, then the helper's command line.
() {
  emulate -L zsh
  local channel_path=$1 token=$2 proof_path=$3
  shift 3
  # The helper's interpreter: without it the helper never starts and the server would be waited on.
  local perl=${argv[(r)*/perl]}
  if [[ ! -o interactive ]]; then
    print -u2 "tmux-mcp: not enrolled: this is not an interactive shell"; return 1
  elif [[ ! -o zle ]]; then
    print -u2 "tmux-mcp: not enrolled: the line editor (ZLE) is off"; return 1
  elif [[ $ZSH_VERSION != 5.9 && $ZSH_VERSION != 5.9.<-> ]]; then
    print -u2 "tmux-mcp: not enrolled: zsh 5.9 is required"; return 1
  elif [[ -n $perl && ! ( -f $perl && -x $perl ) ]]; then
    print -u2 "tmux-mcp: not enrolled: tmux_run's helper is a perl program and there is no executable $perl here; install perl"; return 1
  elif (( ${+_tmux_mcp_channel_fd} )); then
    print -u2 "tmux-mcp: nothing to do: this shell is already enrolled"; return 1
  fi
  local had_socket_module=0 channel_fd helper_fd proof_fd reply
  zmodload -e zsh/net/socket && had_socket_module=1
  if ! zmodload zsh/net/socket 2>/dev/null || ! zsocket $channel_path 2>/dev/null; then
    (( had_socket_module )) || zmodload -u zsh/net/socket 2>/dev/null
    print -u2 "tmux-mcp: not enrolled: the MCP server is not reachable"; return 1
  fi
  channel_fd=$REPLY
  # Holding the proof file open lets the server see, in /proc, which process is enrolling.
  # (No `2>/dev/null` on these exec lines: on a bare exec it would redirect the shell itself.)
  [[ -r $proof_path ]] && exec {proof_fd}<$proof_path
  # The helper keeps none of the enrollment's descriptors: the channel must reach EOF when the
  # shell exits, and the proof file is only the shell's to hold.
  exec {helper_fd}> >(
    exec {channel_fd}>&-
    [[ -n $proof_fd ]] && exec {proof_fd}<&-
    exec "$@" >/dev/null 2>&1
  )
  print -rn -u $helper_fd -- "H"$'\0'"$channel_path"$'\0'"$token"$'\0'
  print -u $channel_fd -- "E $token"
  read -t 20 -r -u $channel_fd reply
  [[ -n $proof_fd ]] && exec {proof_fd}<&-
  if [[ $reply != "OK "* ]]; then
    exec {channel_fd}>&- {helper_fd}>&-
    (( had_socket_module )) || zmodload -u zsh/net/socket 2>/dev/null
    case $reply in
      ("NO not-root") print -u2 "tmux-mcp: not enrolled: source it in the pane's own shell, not a nested one";;
      ("NO tmux-too-old") print -u2 "tmux-mcp: not enrolled: tmux 3.3 or newer is required";;
      ("NO expired") print -u2 "tmux-mcp: not enrolled: this invitation has expired or was used";;
      ("NO already-enrolled") print -u2 "tmux-mcp: nothing to do: this pane is already enrolled";;
      ("NO contested") print -u2 "tmux-mcp: not enrolled: another process presented this invitation at the same time (someone who read the setup file); enroll again, with the setup file in a directory only you can read";;
      ("NO full") print -u2 'tmux-mcp: not enrolled: every enrollment slot of the server is in use; take another pane back (eval "$(tmux-mcp leave)" there), then enroll again';;
      (*) print -u2 "tmux-mcp: not enrolled: the MCP server refused or did not answer";;
    esac
    return 1
  fi
  typeset -g _tmux_mcp_channel_fd=$channel_fd _tmux_mcp_helper_fd=$helper_fd
  typeset -gi _tmux_mcp_notices=$(( ! ${+_tmux_mcp_quiet} ))
  unset _tmux_mcp_quiet

  # Whether the line editor is idle and empty, as zsh 5.9 shows it to a widget. Not idle: a line
  # or a continuation; keys read but not yet acted on ($KEYS: a prefix such as ESC waiting for the
  # rest of its sequence, or the key of a completion that asks "do you wish to see all N
  # possibilities?"); a digit argument waiting ($NUMERIC); a vi operator waiting for its motion
  # (zsh sets $MARK to -1 while it reads one); a search or a menu selection.
  function _tmux_mcp_idle {
    [[ $CONTEXT == start && -z $BUFFER && -z $PREBUFFER && -z $KEYS ]] &&
      (( ! (PENDING || KEYS_QUEUED_COUNT || ${+NUMERIC} || MARK < 0 || ISEARCHMATCH_ACTIVE) )) &&
      [[ $LASTWIDGET != *(isearch|incremental-search|menu-select)* ]]
  }

  # Called by ZLE only while it waits for keyboard input. Each request is one line
  # "R <run_id> <token> <digest>"; it runs only at an idle, empty primary prompt. A line
  # "M <text>" is a finished run's notice: shown under the prompt then, else dropped.
  function _tmux_mcp_on_request {
    emulate -L zsh
    local line name
    if ! read -r -u $1 line; then
      _tmux_mcp_retire
      return 0
    fi
    if [[ $line == "M "* ]]; then
      # The server made the text safe; control characters are replaced here too.
      (( _tmux_mcp_notices )) && _tmux_mcp_idle && zle -M -- "${${line[3,300]}//[[:cntrl:]]/?}"
      return 0
    fi
    local -a request=(${=line})
    [[ $request[1] == R && $#request == 4 ]] || return 0
    if ! _tmux_mcp_idle; then
      print -u $1 -- "N $request[2] busy"
      return 0
    fi
    local -a exported
    for name in ${(k)parameters[(R)*export*]}; do
      exported+=("$name=${(P)name}")
    done
    # The umask goes between the cwd and the environment, printed by the builtin itself: no fork.
    local -a head=(R $request[2] $request[3] $request[4] "$PWD") tail=($#exported "${exported[@]}")
    print -rn -u $_tmux_mcp_helper_fd -- "${(pj:\0:)head}"$'\0'
    umask >&$_tmux_mcp_helper_fd
    print -rn -u $_tmux_mcp_helper_fd -- $'\0'"${(pj:\0:)tail}"$'\0'
  }

  # The channel reached EOF: the server is gone. Undo the enrollment so the pane can enroll again.
  function _tmux_mcp_retire {
    zle -F $_tmux_mcp_channel_fd 2>/dev/null
    exec {_tmux_mcp_channel_fd}>&- {_tmux_mcp_helper_fd}>&-
    unset _tmux_mcp_channel_fd _tmux_mcp_helper_fd _tmux_mcp_notices
    zle -D _tmux_mcp_on_request 2>/dev/null
    unfunction _tmux_mcp_on_request _tmux_mcp_idle _tmux_mcp_retire
  }

  # Retiring unloads zsh/net/socket when enrolling loaded it (the shell did not have it).
  (( had_socket_module )) || functions[_tmux_mcp_retire]+=$'\n  zmodload -u zsh/net/socket 2>/dev/null'

  zle -N _tmux_mcp_on_request
  zle -F -w $channel_fd _tmux_mcp_on_request
  print -- "tmux-mcp: this pane is enrolled for tmux_run"
  return 0
} "$@"
