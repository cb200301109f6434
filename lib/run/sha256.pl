# SHA-256 for the helper (lib/run/helper.pl), which re-hashes every script before it runs it.
# Digest::SHA does it in C where perl has its full core modules (macOS, most Linux machines);
# a perl with only Debian's perl-base has no Digest::SHA, so the same digest is computed here in
# plain perl: a full-size script (64 KiB) takes about 0.1 s that way. tests/helper_test.ts holds
# this one to WebCrypto.
use strict;
use warnings;

my @SHA256_K = (
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
);

# The 32-bit words here live in 64-bit perl integers: every sum is cut back to 32 bits.
sub sha256_hex_plain {
  my ($message) = @_;
  my @h = (
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
  );
  my $bits = length($message) * 8;
  $message .= "\x80" . ("\0" x ((55 - length $message) % 64)) . pack("NN", $bits / 2**32, $bits);
  my $rotr = sub { (($_[0] >> $_[1]) | ($_[0] << (32 - $_[1]))) & 0xffffffff };
  for (my $at = 0; $at < length $message; $at += 64) {
    my @w = unpack "N16", substr($message, $at, 64);
    for my $i (16 .. 63) {
      my ($w15, $w2) = ($w[$i - 15], $w[$i - 2]);
      my $s0 = $rotr->($w15, 7) ^ $rotr->($w15, 18) ^ ($w15 >> 3);
      my $s1 = $rotr->($w2, 17) ^ $rotr->($w2, 19) ^ ($w2 >> 10);
      $w[$i] = ($w[$i - 16] + $s0 + $w[$i - 7] + $s1) & 0xffffffff;
    }
    my ($a, $b, $c, $d, $e, $f, $g, $hh) = @h;
    for my $i (0 .. 63) {
      my $s1 = $rotr->($e, 6) ^ $rotr->($e, 11) ^ $rotr->($e, 25);
      my $choice = ($e & $f) ^ (~$e & $g & 0xffffffff);
      my $t1 = ($hh + $s1 + $choice + $SHA256_K[$i] + $w[$i]) & 0xffffffff;
      my $s0 = $rotr->($a, 2) ^ $rotr->($a, 13) ^ $rotr->($a, 22);
      my $majority = ($a & $b) ^ ($a & $c) ^ ($b & $c);
      ($hh, $g, $f, $e, $d, $c, $b, $a) =
        ($g, $f, $e, ($d + $t1) & 0xffffffff, $c, $b, $a, ($t1 + $s0 + $majority) & 0xffffffff);
    }
    my @round = ($a, $b, $c, $d, $e, $f, $g, $hh);
    $h[$_] = ($h[$_] + $round[$_]) & 0xffffffff for 0 .. 7;
  }
  return join "", map { sprintf "%08x", $_ } @h;
}

my $have_digest_sha = eval { require Digest::SHA; 1 };

sub sha256_hex {
  return $have_digest_sha ? Digest::SHA::sha256_hex($_[0]) : sha256_hex_plain($_[0]);
}

1;
