if true; then cat <<EOF
x
EOF
fi