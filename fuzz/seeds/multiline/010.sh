cat <<EOF
x
EOF