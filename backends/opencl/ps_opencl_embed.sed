# Turn each line of the kernel source into a C string literal line.
s/\\/\\\\/g
s/"/\\"/g
s/^/"/
s/$/\\n"/
