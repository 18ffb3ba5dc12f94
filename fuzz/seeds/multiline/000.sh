ec\
ho a\
b