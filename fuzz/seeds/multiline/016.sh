cat <<a'b'c"d"
x
abcd