a
# c
b