one <<EOF | grep two
three
EOF
