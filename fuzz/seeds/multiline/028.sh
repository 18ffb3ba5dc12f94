echo "a" "b"
echo "a ${b} c" "d $e"
echo "(())"
