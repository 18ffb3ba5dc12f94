cat <<A; cat <<B
a
A
b
B