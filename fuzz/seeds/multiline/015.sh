cat <<A $(echo x
echo y)
body
A