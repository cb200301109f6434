# The helper: the enrolled shell's own child, started once at enrollment, that runs each script
# and waits on it natively. The server is not the shell's ancestor, so it cannot wait on the
# script; a shell's `$?` cannot tell exit 130 from SIGINT. The helper can, and it stays alive
# while enrolled so that no run pays a process start-up.
#
# Why perl: it is in /usr/bin on Linux and macOS alike, it can fork, lead a process group, exec
# and wait with the kernel's own calls, and a helper in it holds about 8 MiB where a Deno helper
# held 48-54 MiB (`deno task bench`). Only modules of Debian's perl-base are used: POSIX, Socket,
# Errno, Fcntl; sha256_hex comes from lib/run/sha256.pl, which the server writes into the same file
# ahead of this one. The server starts it as `/usr/bin/env -i /usr/bin/perl FILE`, so no
# PERL5OPT or PERL5LIB of the person's environment reaches it.
#
# The wire (lib/run/frames.ts): two big-endian u32 lengths, a JSON header, raw body bytes. The
# server's headers are flat objects of short lowercase strings and integers, read here by one
# strict pattern; the helper's are built here from checked values only.
use strict;
use warnings;

# --- The launcher (Linux). On the VMs we measure on, each page a process writes after a fork is
# a copy of about 17 µs, and the helper, with its modules and heap, wrote some 125 after each fork
# of a script (about 4 ms of its CPU per run). So the helper forks once, here, before it loads a
# module, and that small perl (under 1 MiB of its own pages) starts each script instead: by
# clone(2) with CLONE_PARENT, so the script's `sh` is still the helper's own child, waited on and
# stopped by the helper as if it had forked it. perl-base cannot pass descriptors over a socket,
# so the launcher opens the helper's ends of the run's pipes through /proc/HELPER/fd, on its own
# 0-2 before the clone (with the shell's directory and umask), and the child only leads its
# group, adopts orphans and execs `sh`. The helper sends the system calls' numbers first (it
# knows its machine once POSIX is loaded) or closes the pipe where it has none; a launcher that
# fails is retired and the helper forks each script itself, as it does on macOS. The launcher
# leaves when its request pipe ends. docs/design/perl_launcher.md has the numbers.
my ($launch_requests, $launch_answers, $launcher_pid);

# `count` bytes from one of the launcher's pipes, or undef at its end: the launcher reads the
# helper's requests with it, the helper the launcher's answers.
sub launcher_read {
  my ($pipe, $count) = @_;
  my $bytes = '';
  while (length $bytes < $count) {
    my $got = sysread $pipe, $bytes, $count - length $bytes, length $bytes;
    next if !defined $got && $! == 4;    # EINTR, on every Linux
    return undef unless $got;
  }
  return $bytes;
}

# One record from the helper: a u32 length, then NUL-separated fields; undef at the pipe's end.
sub launcher_record {
  my ($requests) = @_;
  my $length = launcher_read($requests, 4) // return undef;
  my $record = launcher_read($requests, unpack 'N', $length) // return undef;
  return [split /\0/, $record, -1];
}

# One run's `sh`, cloned. The launcher takes the run's pipes as its own 0-2 and the shell's
# directory and umask before the clone, so the child has the least to do (each page it writes is
# a copy): lead a new group, adopt orphans, exec. The answer: the pid; or 0 when the directory
# could not be entered, -1 when the system refused a process or memory, -2 for anything else
# (the helper then forks the script itself).
sub launch_one {
  my ($calls, $helper, $request) = @_;
  my ($in, $out, $err, $report, $cwd, $umask, $script, @environment) = @$request;
  my @ends;
  for ([$in, 0], [$out, 1], [$err, 1], [$report, 1]) {
    sysopen my $end, "/proc/$helper/fd/$_->[0]", $_->[1] or return -2;
    push @ends, $end;
  }
  chdir $cwd or return 0;
  umask $umask if length $umask;
  for my $fd (0 .. 2) {
    return -2 unless syscall($calls->{dup3}, fileno $ends[$fd], $fd, 0) == $fd;
  }
  my $argv = pack 'p*', '/bin/sh', '-c', $script, undef;
  my $envp = pack 'p*', @environment, undef;
  # syscall(2) passes a string by its address and needs it writable: no literals.
  my ($sh, $report_end) = ('/bin/sh', $ends[3]);
  # CLONE_PARENT (0x8000): the child is the helper's; SIGCHLD (17) to it at the child's exit.
  my $pid = syscall($calls->{clone}, 0x8000 | 17, 0, 0, 0, 0);
  if ($pid == 0) {
    if (setpgrp 0, 0) {
      syswrite $report_end, 'A' if syscall($calls->{prctl}, 36, 1, 0, 0, 0) == 0;
      syscall($calls->{execve}, $sh, $argv, $envp);
    }
    my $errno = 0 + $!;
    syswrite $report_end,
      (grep { $errno == $calls->{$_} } qw(e2big enomem eagain)) ? 'Fresources' : 'Fstart';
    syscall($calls->{exit_group}, 127);
  }
  return $pid if $pid > 0;
  return $! == $calls->{eagain} || $! == $calls->{enomem} ? -1 : -2;
}

sub launcher_main {
  my ($requests, $answers, $helper) = @_;
  $0 = 'tmux-mcp launcher';
  open STDIN, '<', '/dev/null';
  open STDOUT, '>', '/dev/null';
  open STDERR, '>', '/dev/null';
  open my $null, '+<', '/dev/null';
  # What a script starts with: handled signals go back to their defaults at exec (see the
  # helper's handlers below), none blocked; perl ignores SIGFPE for itself.
  $SIG{$_} = sub { } for qw(HUP INT PIPE QUIT ALRM USR1 USR2 TSTP TTIN TTOU);
  $SIG{TERM} = sub { exit 0 };
  $SIG{FPE} = 'DEFAULT';
  my $init = launcher_record($requests) or exit 0;
  my %calls = @$init;
  my $no_signals = "\0" x 8;
  syscall($calls{rt_sigprocmask}, 2, $no_signals, 0, 8);
  if (opendir my $fds, '/dev/fd') {
    my %keep = map { $_ => 1 } 0 .. 2, map { fileno $_ } $requests, $answers, $null, $fds;
    my @inherited = grep { /\A[0-9]+\z/ && !$keep{$_} } readdir $fds;
    closedir $fds;
    syscall($calls{close}, 0 + $_) for @inherited;
  }
  while (my $request = launcher_record($requests)) {
    my $answer = launch_one(\%calls, $helper, $request);
    # Back to nothing on 0-2 and in `/` before the answer: once the helper has it, the launcher
    # holds no end of the run's pipes (they must reach their EOF) and no directory.
    syscall($calls{dup3}, fileno $null, $_, 0) for 0 .. 2;
    chdir '/';
    syswrite $answers, pack 'l', $answer;
  }
  exit 0;
}

BEGIN {
  if ($^O eq 'linux' && pipe(my $requests, $launch_requests) && pipe($launch_answers, my $answers)) {
    my $helper = $$;
    $launcher_pid = fork;
    if (defined $launcher_pid && $launcher_pid == 0) {
      close $_ for $launch_requests, $launch_answers;
      launcher_main($requests, $answers, $helper);
    }
    close $_ for $requests, $answers;
    if (!$launcher_pid) {
      close $_ for $launch_requests, $launch_answers;
      ($launch_requests, $launch_answers, $launcher_pid) = ();
    }
  }
}

use POSIX ();
use Socket qw(AF_UNIX SOCK_STREAM pack_sockaddr_un);
use Errno qw(EINTR EAGAIN ENOMEM E2BIG);
use Fcntl qw(F_GETFL F_SETFL F_GETFD F_SETFD FD_CLOEXEC O_NONBLOCK);

# Descriptors the shell left open beyond 0-2 would reach every script: closed once, here. Every
# descriptor perl opens from now on is close-on-exec (it sets that above $^F, 2), so a script
# gets only the three its child sets up.
if (opendir my $fds, '/dev/fd') {
  my %keep = map { $_ => 1 } 0 .. 2, fileno $fds,
    $launcher_pid ? (fileno $launch_requests, fileno $launch_answers) : ();
  my @inherited = grep { /\A[0-9]+\z/ && !$keep{$_} } readdir $fds;
  closedir $fds;
  POSIX::close($_) for @inherited;
}

# After the exit is seen, both pipes must reach EOF within this window (spec §3.16).
my $DRAIN_WINDOW = 0.25;
# How long the loop sleeps at most while a script runs: its exit wakes the loop (SIGCHLD), and
# this bounds the one case it cannot, a signal in the microseconds between perl's last look at
# its signals and the `select` call.
my $EXIT_BACKSTOP = 0.05;
my $MAX_HEADER = 64 * 1024;
my $MAX_BODY = 2 * 1024 * 1024;
my $READ_BYTES = 65536;
my $HEX32 = qr/\A[0-9a-f]{32}\z/;
my $HEX64 = qr/\A[0-9a-f]{64}\z/;
# The system calls perl-base has no word for, by number, on the Linux machines we know; elsewhere
# (macOS, other machines) none, and the helper does without: no launcher (it forks each script),
# perl's exec after setting %ENV instead of execve(2), and no PR_SET_CHILD_SUBREAPER (36) from
# prctl(2), which makes a script's `sh` adopt what its descendants orphan (a double fork) so a
# stop can still find it; without it an orphan goes to init, beyond any stop's reach.
my %SYSCALLS_BY_MACHINE = (
  x86_64 => {
    clone => 56, dup3 => 292, execve => 59, exit_group => 231, prctl => 157,
    rt_sigprocmask => 14, close => 3,
  },
  aarch64 => {
    clone => 220, dup3 => 24, execve => 221, exit_group => 94, prctl => 167,
    rt_sigprocmask => 135, close => 57,
  },
);
my %SYSCALLS = $^O eq 'linux' ? %{ $SYSCALLS_BY_MACHINE{ (POSIX::uname())[4] } // {} } : ();
my $PR_SET_CHILD_SUBREAPER = 36;

# `now()`, the seconds of a clock that only goes forward, is lib/run/stop_group.pl's, written
# after this file: perl has compiled it before this file runs.

# The pane's hangup and the person's Ctrl-C at the prompt must not take a run's result with
# them: the helper ends only when its channel says so, after its runs are reported. Handlers,
# not IGNORE, so a script does not inherit them.
my $terminated = 0;
$SIG{HUP} = $SIG{INT} = sub { };
$SIG{TERM} = sub { $terminated = 1 };
# A script's exit wakes the loop through this pipe. Perl runs a signal's handler between two of
# its own steps, so a SIGCHLD that comes while the loop is about to sleep has written here before
# `select` starts, and `select` returns at once instead of sleeping through the exit.
pipe(my $exits, my $exit_note) or exit 0;
for my $end ($exits, $exit_note) {
  fcntl($end, F_SETFL, fcntl($end, F_GETFL, 0) | O_NONBLOCK) or exit 0;
}
$SIG{CHLD} = sub { syswrite $exit_note, 'x' };
# What a script starts with, whatever the shell left the helper: every signal at its default and
# none blocked. Each signal has a handler here (PIPE's does nothing: a write to a closed link
# fails with EPIPE as it would ignored), and exec puts a handled signal back to its default, so
# the forked child sets none of them: on the VMs we measure on, each page a forked perl writes
# before its exec is a copy of about 17 µs, and resetting twelve signals, closing inherited
# descriptors and rebuilding %ENV there cost 2-2.5 ms per run (docs/design/perl_launcher.md).
$SIG{$_} = sub { } for qw(PIPE QUIT ALRM USR1 USR2 TSTP TTIN TTOU);
my $NO_SIGNALS = POSIX::SigSet->new();
my ($SH, $DASH_C) = ('/bin/sh', '-c');

# One record to the launcher (its `launcher_record` reads it); false when it is gone.
sub tell_launcher {
  my $record = join "\0", @_;
  $record = pack('N', length $record) . $record;
  my $at = 0;
  while ($at < length $record) {
    my $wrote = syswrite $launch_requests, $record, length($record) - $at, $at;
    if (!defined $wrote) {
      next if $! == EINTR;
      return 0;
    }
    $at += $wrote;
  }
  return 1;
}

# Forks from here on: the launcher failed, or there was none. SIGKILL, so that a stopped launcher
# goes too; it holds nothing of a run's. (One stopped while the helper waits for its answer holds
# that run, as a stopped helper would, until it is continued or killed.)
sub retire_launcher {
  return unless $launcher_pid;
  close $_ for $launch_requests, $launch_answers;
  kill 'KILL', $launcher_pid;
  waitpid $launcher_pid, 0;
  ($launch_requests, $launch_answers, $launcher_pid) = ();
}

# The launcher learns the system calls' numbers first; without them it goes at once.
if ($launcher_pid) {
  retire_launcher()
    unless %SYSCALLS && tell_launcher(%SYSCALLS, e2big => E2BIG, enomem => ENOMEM, eagain => EAGAIN);
}

# The launcher's clone of a run's `sh`, given the helper's ends of the run's pipes (stdin's read
# end, stdout's and stderr's write ends, the report's write end): its pid, or the reason the run
# is refused (as a refused fork's would be), or nothing when the launcher failed otherwise (it is
# retired then, and the helper forks).
sub launch {
  my ($request, $script, @ends) = @_;
  return () unless $launcher_pid;
  my $answer = tell_launcher((map { fileno $_ } @ends), $request->{cwd}, $request->{umask} // '',
    $script, @{ $request->{environment} }) ? launcher_read($launch_answers, 4) : undef;
  my $pid = defined $answer ? unpack('l', $answer) : -2;
  return ($pid) if $pid > 0;
  return (undef, 'directory') if $pid == 0;
  return (undef, 'resources') if $pid == -1;
  retire_launcher();
  return ();
}

# --- The shell's pipe: NUL-ended fields. "H", channel path, token; then per run "R", run id,
# token, digest, cwd, umask (as the builtin prints it), a count, then that many NAME=value.

my $from_shell = '';
my @fields;
my $shell_open = 1;

# One read of the shell's pipe into @fields; false at its end.
sub read_shell {
  my $got = sysread STDIN, $from_shell, $READ_BYTES, length $from_shell;
  return 1 if !defined $got && $! == EINTR;
  return 0 unless $got;
  while ((my $end = index $from_shell, "\0") >= 0) {
    push @fields, substr $from_shell, 0, $end;
    substr($from_shell, 0, $end + 1) = '';
  }
  return 1;
}

while (@fields < 3) { read_shell() or exit 0 }
my ($hello_kind, $channel_path, $token) = splice @fields, 0, 3;
exit 0 unless $hello_kind eq 'H' && $token =~ $HEX32;
socket(my $link, AF_UNIX, SOCK_STREAM, 0) or exit 0;
connect($link, pack_sockaddr_un($channel_path)) or exit 0;
my $link_open = 1;

# --- The link to the server.

sub write_all {
  my $at = 0;
  while ($link_open && $at < length $_[0]) {
    my $wrote = syswrite $link, $_[0], length($_[0]) - $at, $at;
    if (!defined $wrote) {
      next if $! == EINTR;
      $link_open = 0;
    } else {
      $at += $wrote;
    }
  }
}

# One frame: a header built from checked values, then the body's parts as they are, passed as
# references (a full-size result's outputs are 256 KiB each; perl copies a string it assigns).
sub send_frame {
  my ($header, @body) = @_;
  my $body_length = 0;
  $body_length += length $$_ for @body;
  write_all(pack('NN', length $header, $body_length) . $header);
  write_all($$_) for @body;
}

sub completion_json {
  my ($completion) = @_;
  return 'null' unless $completion;
  return sprintf '{"state":"signaled","exit_status":null,"signal":%d}', $completion->{signal}
    if defined $completion->{signal};
  return sprintf '{"state":"exited","exit_status":%d,"signal":null}', $completion->{exit_status};
}


sub refuse {
  my ($run_id, $reason) = @_;
  send_frame(qq({"type":"refused","run_id":"$run_id","reason":"$reason"}));
}

# A server header, or undef when it is not a flat object of lowercase strings and integers.
sub parse_header {
  my ($json) = @_;
  my %header;
  return undef unless $json =~ /\G\{/gc;
  while (1) {
    return undef unless $json =~ /\G"([a-z_]+)":(?:"([0-9a-z_]*)"|(0|[1-9][0-9]{0,14}))/gc;
    $header{$1} = defined $2 ? $2 : 0 + $3;
    return \%header if $json =~ /\G\}\z/gc;
    return undef unless $json =~ /\G,/gc;
  }
}

send_frame(qq({"type":"hello","token":"$token","pid":$$}));

my %requests;    # run id => what the shell said about the run, until its script arrives
my %runs;        # run id => a script running, or draining after its exit
my $leaving = 0; # the server went, or asked us to go: stop what runs, then exit

sub take_records {
  while (@fields) {
    return 0 unless $fields[0] eq 'R';    # anything else ends the shell's stream
    return 1 if @fields < 7;
    return 0 unless $fields[6] =~ /\A[0-9]+\z/;
    return 1 if @fields < 7 + $fields[6];
    my (undef, $run_id, $run_token, $digest, $cwd, $mask, $count) = splice @fields, 0, 7;
    my @environment = grep { index($_, '=') > 0 } splice @fields, 0, $count;
    $mask =~ s/\A\s+|\s+\z//g;
    next unless $run_id =~ $HEX32 && $run_token =~ $HEX32 && $digest =~ $HEX64;
    $requests{$run_id} = {
      cwd => $cwd,
      umask => ($mask =~ /\A[0-7]{1,4}\z/ ? oct $mask : undef),
      environment => \@environment,
      digest => $digest,
    };
    send_frame(qq({"type":"ready","run_id":"$run_id","token":"$run_token","digest":"$digest"}));
  }
  return 1;
}

# --- Running a script.

# In the forked child: lead a new group in the shell's session (so /dev/tty opens), adopt
# what the script's descendants orphan, unblock every signal, put the run's three pipes on 0-2,
# take the shell's directory, umask and environment (`argv` and `envp`: execve's arrays, packed
# by the parent), exec `sh`. System calls only, or as few perl steps as can be (the signal
# handlers above say why). Where execve fails, perl's exec tries once more and its error says
# why. `report` tells the helper, before the exec closes it, whether `sh` adopts orphans ("A")
# and, if the script cannot start, why ("F" and a reason).
sub become_script {
  my ($request, $script, $stdin, $stdout, $stderr, $report, $argv, $envp) = @_;
  my $fail = sub {
    syswrite $report, "F$_[0]";
    POSIX::_exit(127);
  };
  setpgrp(0, 0) or $fail->('start');
  syswrite $report, 'A'
    if $SYSCALLS{prctl} && syscall($SYSCALLS{prctl}, $PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
  POSIX::sigprocmask(POSIX::SIG_SETMASK(), $NO_SIGNALS);
  POSIX::dup2(fileno $stdin, 0);
  POSIX::dup2(fileno $stdout, 1);
  POSIX::dup2(fileno $stderr, 2);
  chdir $request->{cwd} or $fail->('directory');
  umask $request->{umask} if defined $request->{umask};
  # perl ignores SIGFPE for itself and puts it back only in its own exec.
  if ($SYSCALLS{execve}) {
    $SIG{FPE} = 'DEFAULT';
    syscall($SYSCALLS{execve}, $SH, $argv, $envp);
  }
  %ENV = map { split /=/, $_, 2 } @{ $request->{environment} };
  { no warnings 'exec'; exec { $SH } $SH, $DASH_C, $script; }
  $fail->($! == E2BIG || $! == ENOMEM || $! == EAGAIN ? 'resources' : 'start');
}

# What the child said on its report pipe until the exec closed it (or it exited).
sub read_report {
  my ($report) = @_;
  my $said = '';
  while (1) {
    my $got = sysread $report, $said, 64, length $said;
    next if !defined $got && $! == EINTR;
    return $said unless $got;
  }
}

sub start_run {
  my ($run_id, $limits, $script) = @_;
  my $request = delete $requests{$run_id};
  return refuse($run_id, 'unknown_run') unless $request;
  return refuse($run_id, 'nul') if index($script, "\0") >= 0;
  return refuse($run_id, 'digest') if sha256_hex($script) ne $request->{digest};
  return refuse($run_id, 'leaving') if $leaving;
  # stdin is a pipe whose write end closes at once: the script reads EOF. A pipe or a fork the
  # system refuses (a process or descriptor limit) means nothing ran.
  my ($in_r, $in_w, $out_r, $out_w, $err_r, $err_w, $report_r, $report_w);
  pipe($in_r, $in_w) && pipe($out_r, $out_w) && pipe($err_r, $err_w)
    && pipe($report_r, $report_w)
    && fcntl($report_w, F_SETFD, fcntl($report_w, F_GETFD, 0) | FD_CLOEXEC)
    or return refuse($run_id, 'resources');
  my ($pid, $refusal) = launch($request, $script, $in_r, $out_w, $err_w, $report_w);
  return refuse($run_id, $refusal) if $refusal;
  if (!$pid) {
    # Pointers to strings that live on in the child (the request's and the script), each array
    # ended by a null pointer.
    my $argv = pack 'p*', $SH, $DASH_C, $script, undef;
    my $envp = pack 'p*', @{ $request->{environment} }, undef;
    $pid = fork;
    return refuse($run_id, 'resources') unless defined $pid;
    become_script($request, $script, $in_r, $out_w, $err_w, $report_w, $argv, $envp) if $pid == 0;
  }
  # Both sides set the group, so it exists whichever of the two runs first.
  setpgrp($pid, $pid);
  close $_ for $in_r, $in_w, $out_w, $err_w, $report_w;
  my $said = read_report($report_r);
  if ($said =~ /F([a-z]+)/) {
    waitpid $pid, 0;
    return refuse($run_id, $1);
  }
  my $adopts = index($said, 'A') >= 0;
  $runs{$run_id} = {
    id => $run_id,
    pid => $pid,
    adopts => $adopts,
    streams => {
      stdout => { fh => $out_r, data => '', limit => $limits->{stdout_limit} },
      stderr => { fh => $err_r, data => '', limit => $limits->{stderr_limit} },
    },
    completion => undef,
    exited_at => undef,
    stop_signal => undef,
  };
  send_frame(sprintf '{"type":"started","run_id":"%s","pid":%d,"adopts":%s}',
    $run_id, $pid, $adopts ? 'true' : 'false');
}

sub open_streams {
  my ($run) = @_;
  return grep { $run->{streams}{$_}{fh} } qw(stdout stderr);
}

sub close_streams {
  my ($run) = @_;
  for my $stream (values %{ $run->{streams} }) {
    close $stream->{fh} if $stream->{fh};
    $stream->{fh} = undef;
  }
}

# Reaps the run's `sh` if it has exited: the native completion, exit or signal. `stops` also
# reads a stop of `sh` (SIGTTIN when it read the terminal from the pane's background), once.
sub reap {
  my ($run, $stops) = @_;
  return if $run->{completion};
  my $flags = POSIX::WNOHANG() | ($stops ? POSIX::WUNTRACED() : 0);
  return unless waitpid($run->{pid}, $flags) == $run->{pid};
  # perl's $? reads a stop as 0, an exit 0; the kernel's own status tells them apart.
  if (POSIX::WIFSTOPPED(${^CHILD_ERROR_NATIVE})) {
    $run->{stop_signal} = POSIX::WSTOPSIG(${^CHILD_ERROR_NATIVE});
    return;
  }
  my $status = $?;
  $run->{completion} = POSIX::WIFSIGNALED($status)
    ? { signal => POSIX::WTERMSIG($status) }
    : { exit_status => POSIX::WEXITSTATUS($status) };
  $run->{exited_at} = now();
}

# --- Stopping a script's group: lib/run/stop_group.pl, which the server writes after this file.
# The helper is `sh`'s parent, so it reaps `sh` while it stops the group (the stop's completion)
# and reads a stop of `sh` first (what had halted it).
sub stop_run_group {
  my ($run) = @_;
  reap($run, 1);
  my $stop = stop_group($run->{pid}, $run->{adopts}, sub { reap($run); $run->{completion} });
  $stop->{halt_signal} = $run->{stop_signal};
  return $stop;
}

sub end_run {
  my ($run) = @_;
  close_streams($run);
  delete $runs{ $run->{id} };
}

# The server's `cancel`, or our leaving. A script that has already exited on its own is not
# stopped: a stop now would only hit background jobs, which are the author's choice, and its
# result (or the drain verdict) follows within the window.
sub stop_run {
  my ($run) = @_;
  reap($run);
  return if $run->{completion};
  my $stop = stop_run_group($run);
  end_run($run);
  send_frame(sprintf '{"type":"cancelled","run_id":"%s","completion":%s,"stop":%s}',
    $run->{id}, completion_json($run->{completion}), stop_json($stop));
}

# Overflow refuses the run, even after `sh` exited: what it left in its group goes too.
sub overflow_run {
  my ($run, $stream) = @_;
  my $stop = stop_run_group($run);
  end_run($run);
  send_frame(sprintf '{"type":"overflow","run_id":"%s","stream":"%s","stop":%s}',
    $run->{id}, $stream, stop_json($stop));
}

# Reads what a stream has, at most its allowance + 1 byte.
sub drain {
  my ($run, $name) = @_;
  my $stream = $run->{streams}{$name};
  my $room = $stream->{limit} + 1 - length $stream->{data};
  $room = $READ_BYTES if $room > $READ_BYTES;
  my $got = sysread $stream->{fh}, $stream->{data}, $room, length $stream->{data};
  return if !defined $got && $! == EINTR;
  if (!$got) {
    close $stream->{fh};
    $stream->{fh} = undef;
  } elsif (length $stream->{data} > $stream->{limit}) {
    overflow_run($run, $name);
  }
}

# A reaped run reports once both pipes reached EOF, or says which stayed open past the window.
sub settle {
  my ($run) = @_;
  return unless $run->{completion};
  my @open = open_streams($run);
  if (!@open) {
    end_run($run);
    my ($out, $err) = map { \$run->{streams}{$_}{data} } qw(stdout stderr);
    send_frame(sprintf('{"type":"result","run_id":"%s","completion":%s,"stdout_bytes":%d}',
      $run->{id}, completion_json($run->{completion}), length $$out), $out, $err);
  } elsif (now() >= $run->{exited_at} + $DRAIN_WINDOW) {
    end_run($run);
    send_frame(sprintf '{"type":"drain_timeout","run_id":"%s","completion":%s,"open":[%s]}',
      $run->{id}, completion_json($run->{completion}), join ',', map {qq("$_")} @open);
  }
}

# --- The server's frames.

my $from_server = '';
my $proof;    # the file the server's `prove` named, held open until the next frame

sub handle_frame {
  my ($header, $body) = @_;
  my $type = $header->{type} // '';
  if ($type eq 'prove') {
    # The server proves who is on this connection by naming a file (the body) for us to hold
    # open while it looks at our descriptors.
    send_frame('{"type":"proved"}') if open $proof, '<', $body;
    return 1;
  }
  my $run_id = $header->{run_id} // '';
  return 0 unless $run_id =~ $HEX32;
  if ($type eq 'abort') {
    delete $requests{$run_id};
  } elsif ($type eq 'count') {
    # Asked for progress: what each stream has given so far. A run already over says nothing;
    # its result is on the way or was sent.
    my $run = $runs{$run_id};
    send_frame(sprintf '{"type":"counted","run_id":"%s","stdout_bytes":%d,"stderr_bytes":%d}',
      $run_id, length $run->{streams}{stdout}{data}, length $run->{streams}{stderr}{data})
      if $run;
  } elsif ($type eq 'cancel') {
    stop_run($runs{$run_id}) if $runs{$run_id};
  } elsif ($type eq 'script' && defined $header->{stdout_limit}
    && defined $header->{stderr_limit})
  {
    start_run($run_id, $header, $body);
  } else {
    return 0;
  }
  return 1;
}

# Takes every whole frame read so far; false when one is malformed.
sub take_frames {
  while (length $from_server >= 8) {
    my ($header_length, $body_length) = unpack 'NN', $from_server;
    return 0 if $header_length > $MAX_HEADER || $body_length > $MAX_BODY;
    my $length = 8 + $header_length + $body_length;
    return 1 if length $from_server < $length;
    my $header = parse_header(substr $from_server, 8, $header_length);
    my $body = substr $from_server, 8 + $header_length, $body_length;
    substr($from_server, 0, $length) = '';
    undef $proof;
    return 0 unless $header && handle_frame($header, $body);
  }
  return 1;
}

$shell_open = take_records();

# --- The loop. The shell closing its end means it exited: every run still in flight finishes,
# drains and reports first (the server decides whether a run outlives its shell). The server
# closing the link, or SIGTERM, means nobody will read a result: stop every run's group, go.

while (1) {
  $leaving ||= $terminated || !$link_open;
  reap($_) for values %runs;
  if ($leaving) { stop_run($_) for values %runs }
  settle($_) for values %runs;
  last if !%runs && ($leaving || !$shell_open);

  my $readable = '';
  vec($readable, fileno $exits, 1) = 1;
  vec($readable, fileno STDIN, 1) = 1 if $shell_open;
  vec($readable, fileno $link, 1) = 1 if $link_open;
  my $timeout;
  for my $run (values %runs) {
    vec($readable, fileno $run->{streams}{$_}{fh}, 1) = 1 for open_streams($run);
    my $wait = $run->{completion} ? $run->{exited_at} + $DRAIN_WINDOW - now() : $EXIT_BACKSTOP;
    $wait = 0 if $wait < 0;
    $timeout = $wait if !defined $timeout || $wait < $timeout;
  }
  my $ready = select(my $seen = $readable, undef, undef, $timeout);
  next if $ready <= 0;
  sysread $exits, my $notes, 512 if vec($seen, fileno $exits, 1);

  for my $run (values %runs) {
    for my $name (open_streams($run)) {
      next unless $runs{ $run->{id} } && vec($seen, fileno $run->{streams}{$name}{fh}, 1);
      drain($run, $name);
    }
  }
  if ($shell_open && vec($seen, fileno STDIN, 1)) {
    $shell_open = read_shell() && take_records();
  }
  if ($link_open && vec($seen, fileno $link, 1)) {
    my $got = sysread $link, $from_server, $READ_BYTES, length $from_server;
    if (!defined $got && $! == EINTR) {
      # A signal: the loop looks again.
    } elsif (!$got || !take_frames()) {
      $link_open = 0;
    }
  }
}

# Going with the link still open: close our side for writing, then read and drop what the server
# still sends until it closes its side, for a second at most. A Unix socket closed with unread
# data makes its peer's next read a reset, and a server that met the reset lost the frames we
# had sent last (a result, with a cancel of ours unread: tests/faults_test.ts).
if ($link_open) {
  shutdown $link, 1;
  my $until = now() + 1;
  while ((my $left = $until - now()) > 0) {
    my $readable = '';
    vec($readable, fileno $link, 1) = 1;
    my $ready = select(my $seen = $readable, undef, undef, $left);
    next if $ready < 0;
    last if $ready == 0;
    my $dropped;
    my $got = sysread $link, $dropped, $READ_BYTES;
    last unless defined $got ? $got : $! == EINTR;
  }
}
retire_launcher();
exit 0;
