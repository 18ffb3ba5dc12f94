cat <<EOF
fi done esac
EOF