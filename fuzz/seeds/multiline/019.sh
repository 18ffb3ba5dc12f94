VAR1=1 ./script/test
VAR1=a VAR2="ok" git diff --word-diff=color
