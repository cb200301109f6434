# What a fork costs the helper on this machine, apart from MCP, tmux and zsh: a perl with the
# helper's modules and a heap the helper's size (3 MiB of its own pages, RssAnon in
# /proc/PID/status of a helper; 8 MiB resident with perl's shared pages) forks and execs `/bin/sh -c true` and waits,
# with a little of its own work around it, as the helper does for each run; against the same
# done by asking a small perl started once (no modules, a tiny heap) to fork and wait for it.
# Also the same perl work timed alone and right after a fork: after a fork every page the parent
# writes faults once, even when the child has already exec'd, and on the VMs we measure on each
# such fault costs about 20 µs (docs/design/perl_launcher.md).
# Usage: perl bench/fork_cost.pl [RUNS]
use strict;
use warnings;
use POSIX ();
use Socket ();
use Fcntl ();
use Errno ();
use Time::HiRes qw(time);

my $RUNS = shift // 200;
my @heap = map { { id => $_, name => 'x' x 50, list => [1 .. 10] } } 1 .. 1000;

# A run's worth of the helper's own steps: a few hashes, a frame's text, refcounts touched.
sub work {
  my %fields = map { ("k$_" => { at => $_, text => "v$_" }) } 1 .. 50;
  $_->{id}++ for @heap[0 .. 300];
  return join ',', map {"$_=$fields{$_}{at}"} sort keys %fields;
}

sub minor_faults {
  open my $stat, '<', "/proc/$$/stat" or return 0;
  my $line = <$stat>;
  return (split / /, substr $line, rindex($line, ')') + 2)[7];
}

sub p50 { my @sorted = sort { $a <=> $b } @_; return sprintf '%.2f', 1000 * $sorted[@sorted / 2] }

sub spawn_true {
  my $pid = fork;
  if (!$pid) {
    { no warnings 'exec'; exec { '/bin/sh' } '/bin/sh', '-c', 'true'; }
    POSIX::_exit(127);
  }
  return $pid;
}

my (@alone, @after_fork, $faults_alone, $faults_after);
for (1 .. $RUNS) {
  my ($faults, $start) = (minor_faults(), time);
  work();
  push @alone, time - $start;
  $faults_alone += minor_faults() - $faults;
  my $pid = spawn_true();
  waitpid $pid, 0;
  ($faults, $start) = (minor_faults(), time);
  work();
  push @after_fork, time - $start;
  $faults_after += minor_faults() - $faults;
}

my @forked_here;
for (1 .. $RUNS) {
  my $start = time;
  my $pid = spawn_true();
  work();
  waitpid $pid, 0;
  work();
  push @forked_here, time - $start;
}

# The small perl reads a byte per run on fd 20, forks and waits, and answers the wait status.
pipe(my $ask_read, my $ask) or die;
pipe(my $answer, my $answer_write) or die;
my $forker = fork // die;
if (!$forker) {
  POSIX::dup2(fileno $ask_read, 20) // POSIX::_exit(1);
  POSIX::dup2(fileno $answer_write, 21) // POSIX::_exit(1);
  no warnings 'exec';
  exec '/usr/bin/perl', '-e', 'open my $in, "<&=", 20 or die; open my $out, ">&=", 21 or die;
    while (sysread $in, my $byte, 1) {
      my $pid = fork;
      if (!$pid) { exec { "/bin/sh" } "/bin/sh", "-c", "true"; exit 127 }
      waitpid $pid, 0;
      syswrite $out, pack("N", $?);
    }';
  POSIX::_exit(1);
}
close $ask_read;
close $answer_write;
my @forked_by_small;
for my $round (-10 .. $RUNS - 1) {
  my $start = time;
  syswrite $ask, 'x';
  work();
  sysread $answer, my $status, 4;
  work();
  push @forked_by_small, time - $start if $round >= 0;
}
close $ask;
waitpid $forker, 0;

open my $status, '<', "/proc/$$/status";
my ($anon) = map { /(\d+)/ } grep {/^RssAnon/} <$status>;
printf "this perl's own pages (RssAnon): %.1f MiB\n", ($anon // 0) / 1024;
printf "the helper's own steps: %s ms alone (%.0f faults), %s ms right after a fork (%.0f faults)\n",
  p50(@alone), $faults_alone / $RUNS, p50(@after_fork), $faults_after / $RUNS;
printf "sh -c true and those steps, p50 of %d: forked by this perl %s ms, by a small perl %s ms\n",
  $RUNS, p50(@forked_here), p50(@forked_by_small);
