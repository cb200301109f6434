# Stopping a script's job the way Ctrl-C stops a terminal's foreground job, and saying what the
# stop confirmed. One implementation, in perl, because the helper needs it on its own: it stops
# its scripts when the server cancels a run, when an output overflows, and when the server is gone
# and nobody is left to ask. The server needs it only when the helper is gone or does not answer;
# then it runs this same file alone (`perl -e FILE -- PGID ADOPTS`, `stop_alone` below, through
# lib/run/process_group.ts), which prints the report as JSON. The server writes it after
# lib/run/helper.pl in the helper's program: perl compiles the whole file first, so the helper
# calls these subroutines, while its module loads stay after the launcher's fork.
#
# Each script's `sh` leads its own process group in the shell's session, so one signal reaches
# every process the script started and did not move elsewhere. A descendant that moved elsewhere
# (`setsid`, a double fork) is found by its parent links and stopped too: on Linux the helper
# makes `sh` a child subreaper, so even an orphaned descendant stays below it while it lives;
# elsewhere an orphan goes to init and cannot be told from anyone else's, and the report says so.
# What remains afterwards is looked up in the process table, never assumed.
use strict;
use warnings;
use POSIX ();

use constant {
  # Between SIGTERM and SIGKILL, and again for SIGKILL to take effect.
  KILL_GRACE => 0.5,
  STOP_POLL => 0.025,
  CLOCK_TICKS => POSIX::sysconf(POSIX::_SC_CLK_TCK()) || 100,
};

# Seconds on a clock that only goes forward, at the kernel's tick (10 ms): enough for the
# helper's 250 ms drain window and for the stop's polls, with nothing beyond perl-base.
sub now { return (POSIX::times())[0] / CLOCK_TICKS }

# The process table from ps(1), the same on Linux and macOS; undef when it cannot be read.
sub process_table {
  local $ENV{PATH} = '/usr/sbin:/usr/bin:/sbin:/bin';
  local $ENV{LC_ALL} = 'C';
  my $ps = open(my $table, '-|');
  return undef unless defined $ps;
  if ($ps == 0) {
    open STDERR, '>', '/dev/null';
    { no warnings 'exec'; exec 'ps', '-A', '-o', 'pid=,ppid=,pgid=,stat='; }
    POSIX::_exit(127);
  }
  my @rows;
  while (my $line = <$table>) {
    # Copied out at once: a later match (of the state) would reset $1..$4 under the hash.
    my ($pid, $parent, $group, $state) =
      $line =~ /\A\s*([0-9]+)\s+([0-9]+)\s+([0-9]+)\s+(\S+)/ or next;
    push @rows, {
      pid => $pid,
      parent => $parent,
      group => $group,
      live => scalar($state !~ /\A[ZX]/),
      stopped => scalar($state =~ /\AT/),
    };
  }
  close $table or return undef;
  return \@rows;
}

sub live_members {
  my ($rows, $group) = @_;
  return scalar grep { $_->{group} == $group && $_->{live} } @$rows;
}

# Adds to %$escapees every live process outside the group below its leader or below an escapee
# already known (following parent links).
sub find_escapees {
  my ($rows, $leader, $escapees) = @_;
  my %children;
  push @{ $children{ $_->{parent} } }, $_ for @$rows;
  my (%seen, @todo);
  @todo = ($leader, keys %$escapees);
  while (defined(my $pid = shift @todo)) {
    next if $seen{$pid}++;
    for my $child (@{ $children{$pid} || [] }) {
      $escapees->{ $child->{pid} } = 1 if $child->{group} != $leader && $child->{live};
      push @todo, $child->{pid};
    }
  }
}

sub live_escapees {
  my ($rows, $escapees) = @_;
  my %alive = map { $_->{live} ? ($_->{pid} => 1) : () } @$rows;
  return scalar grep { $alive{$_} } keys %$escapees;
}

# Polls `done` every STOP_POLL seconds for up to `limit` seconds.
sub poll_until {
  my ($done, $limit) = @_;
  my $until = now() + $limit;
  while (1) {
    return 1 if $done->();
    return 0 if now() >= $until;
    select(undef, undef, undef, STOP_POLL);
  }
}

# SIGTERM to the group led by `group` and to its escapees (with SIGCONT, so a stopped one can act
# on it), SIGKILL to what is left after the grace, then a look at what remains. `adopts`: `sh`
# adopts orphaned descendants. `reaped`, for a caller that is `sh`'s parent: reaps it if it
# exited, true once it has been (the stop then waits for that too).
sub stop_group {
  my ($group, $adopts, $reaped) = @_;
  $reaped //= sub { 1 };
  my $before = process_table();
  my %escapees;
  my %stop = (halted => 0, orphans_traced => 0, halt_signal => undef);
  if ($before) {
    find_escapees($before, $group, \%escapees);
    $stop{halted} = grep { $_->{group} == $group && $_->{live} && $_->{stopped} } @$before;
    # Orphans come to `sh` only while it lives; once it exited they went to init, unseen.
    $stop{orphans_traced} = $adopts && grep { $_->{pid} == $group && $_->{live} } @$before;
  }
  my $signal = sub {
    kill $_[0], -$group;
    kill $_[0], keys %escapees if %escapees;
  };
  my $gone = sub {
    $reaped->();
    my $rows = process_table() or return 0;
    find_escapees($rows, $group, \%escapees);
    return live_members($rows, $group) == 0 && live_escapees($rows, \%escapees) == 0;
  };
  $signal->('TERM');
  $signal->('CONT');
  if (!poll_until($gone, KILL_GRACE)) {
    $signal->('KILL');
    poll_until($gone, KILL_GRACE);
  }
  poll_until($reaped, KILL_GRACE);
  my $after = process_table();
  $stop{escapees} = scalar keys %escapees;
  $stop{remaining} = $after ? live_members($after, $group) : undef;
  $stop{escapees_left} = $after ? live_escapees($after, \%escapees) : undef;
  return \%stop;
}

sub number_or_null { return defined $_[0] ? 0 + $_[0] : 'null' }

# The report as the wire carries it (lib/run/frames.ts reads it).
sub stop_json {
  my ($stop) = @_;
  return sprintf '{"remaining":%s,"escapees":%d,"escapees_left":%s,"orphans_traced":%s,' .
    '"halted":%d,"halt_signal":%s}', number_or_null($stop->{remaining}), $stop->{escapees},
    number_or_null($stop->{escapees_left}), $stop->{orphans_traced} ? 'true' : 'false',
    $stop->{halted}, number_or_null($stop->{halt_signal});
}

# The server's stop, run alone: `perl -e FILE -- PGID ADOPTS` (ADOPTS 1 or 0) prints the report.
sub stop_alone {
  my ($group, $adopts) = @ARGV;
  exit 2 unless defined $group && $group =~ /\A[1-9][0-9]*\z/;
  $| = 1;
  print stop_json(stop_group(0 + $group, ($adopts // '') eq '1')), "\n";
  exit 0;
}
