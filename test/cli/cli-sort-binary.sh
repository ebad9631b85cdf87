#!/bin/sh
# portsort sort on binary files: every type, both directions, keys alone and
# with values of several sizes, checked bit for bit against an expected
# output computed independently in Perl (totalOrder for floats, stable).
. "${srcdir:-.}/test/cli/cli-common.sh"
need_cmd perl

# gen TYPE N DESC VALUE_SIZE: writes $work/keys, $work/values and the
# expected $work/keys.want, $work/values.want.  Keys are random bit patterns
# (for floats: NaNs, infinities, signed zeros, denormals), a third of them
# drawn from a few values so that stability shows in the values.  For f16
# and bf16 every fifth key is a special value: +-0, +-inf, quiet and
# signalling NaNs of both signs with payloads, the least and largest
# subnormals, the least normal and the largest finite value.
gen() {
    perl -e '
    use strict; use warnings;
    my ($type, $n, $desc, $vsize, $dir) = @ARGV;
    my %fmt = (u8 => "C", u16 => "S<", u32 => "L<", u64 => "Q<",
               i8 => "C", i16 => "S<", i32 => "L<", i64 => "Q<",
               f32 => "L<", f64 => "Q<", f16 => "S<", bf16 => "S<");
    my %special = (
        f16 => [0x0000, 0x8000, 0x7c00, 0xfc00, 0x7c01, 0xfc01, 0x7e00, 0xfe00,
                0x7d55, 0xfeaa, 0x7fff, 0xffff, 0x0001, 0x8001, 0x03ff, 0x83ff,
                0x0400, 0x7bff, 0xfbff],
        bf16 => [0x0000, 0x8000, 0x7f80, 0xff80, 0x7f81, 0xff81, 0x7fc0, 0xffc0,
                 0x7fa5, 0xffd5, 0x7fff, 0xffff, 0x0001, 0x8001, 0x007f, 0x807f,
                 0x0080, 0x7f7f, 0xff7f]);
    my ($bits) = $type =~ /(\d+)/;
    my $f = $fmt{$type};
    my $sign = 1 << ($bits - 1);
    my $mask = $bits == 64 ? ~0 : (1 << $bits) - 1;
    srand($bits * 31 + $n);
    my (@k, @ord);
    my @few = map { (int(rand(2**32)) << 32 | int(rand(2**32))) & $mask } 1..4;
    for my $i (0 .. $n - 1) {
        my $b = (int(rand(2**32)) << 32 | int(rand(2**32))) & $mask;
        $b = $few[$i % 4] if $i % 3 == 0;
        $b = $special{$type}[int(rand(19))] if $special{$type} && $i % 5 == 1;
        push @k, $b;
        # The order key: unsigned order equals the library order.
        my $o = $b;
        if ($type =~ /^i/) { $o = $b ^ $sign }
        elsif ($type =~ /^b?f/) { $o = ($b & $sign) ? (~$b & $mask) : ($b | $sign) }
        push @ord, $o;
    }
    my @p = $desc ? sort { $ord[$b] <=> $ord[$a] || $a <=> $b } 0 .. $n - 1
                  : sort { $ord[$a] <=> $ord[$b] || $a <=> $b } 0 .. $n - 1;
    my @v = map { my $i = $_; join "", map { chr(($i * 7 + $_ * 13) % 256) } 1 .. $vsize } 0 .. $n - 1;
    sub put { my ($name, $data) = @_; open my $h, ">:raw", $name or die; print $h $data; close $h }
    put("$dir/keys", pack("$f*", @k));
    put("$dir/keys.want", pack("$f*", @k[@p]));
    put("$dir/values", join "", @v);
    put("$dir/values.want", join "", @v[@p]);
    ' "$1" "$2" "$3" "$4" "$work"
}

for t in u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64; do
    for desc in 0 1; do
        flag=
        [ "$desc" -eq 1 ] && flag=--descending
        gen "$t" 5000 "$desc" 0
        if "$PORTSORT" sort --binary --type "$t" $flag -o "$work/keys.got" "$work/keys"; then
            same "$work/keys.want" "$work/keys.got" "binary $t keys $flag"
        else
            fail "binary $t keys $flag"
        fi
        for vs in 4 8 3; do
            gen "$t" 3001 "$desc" "$vs"
            cp "$work/keys" "$work/keys.orig"
            if "$PORTSORT" sort --binary --type "$t" $flag --values "$work/values" --value-size "$vs" \
                   -o "$work/keys.got" --values-out "$work/values.got" "$work/keys"; then
                same "$work/keys.want" "$work/keys.got" "binary $t pairs ($vs-byte values) $flag: keys"
                same "$work/values.want" "$work/values.got" "binary $t pairs ($vs-byte values) $flag: values"
                same "$work/keys.orig" "$work/keys" "binary $t pairs: -o leaves FILE as it was"
            else
                fail "binary $t pairs ($vs-byte values) $flag"
            fi
        done
    done
done

# In place, keys and values both, when the outputs name the inputs: the
# files themselves are replaced.
gen u32 1000 0 8
if "$PORTSORT" sort --binary --type u32 --values "$work/values" --value-size 8 \
       --values-out "$work/values" -o "$work/keys" "$work/keys"; then
    same "$work/keys.want" "$work/keys" "binary pairs in place: keys"
    same "$work/values.want" "$work/values" "binary pairs in place: values"
else
    fail "binary pairs in place"
fi
# Without -o the keys go to standard output and FILE is only read; so does
# a pipe.
gen i64 777 1 0
cp "$work/keys" "$work/keys.orig"
"$PORTSORT" sort --binary --type i64 --descending "$work/keys" >"$work/keys.got" &&
    same "$work/keys.want" "$work/keys.got" "binary keys to standard output" &&
    same "$work/keys.orig" "$work/keys" "binary FILE left as it was without -o"
cat "$work/keys" | "$PORTSORT" sort --binary --type i64 -r - | cat >"$work/keys.got" &&
    same "$work/keys.want" "$work/keys.got" "binary keys through pipes"
ls -A "$work" | grep '^\.' && fail "no temporary file is left behind"
finish
