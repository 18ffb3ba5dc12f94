//! Enums whose values have names in policy files, JSON and messages.

/// Declares a fieldless enum whose every variant is written `Variant = "name"`, with the one
/// table of names that serves it all: `ALL` (every value, in declaration order), `as_str` (the
/// name), `from_name` (the value of a name) and `Display` (the name, padded to any width the
/// format asks for). Attributes and doc
/// comments on the enum and its variants stay as written; the enum must be `Copy`.
///
/// ```
/// shellgate_rules::named_enum! {
///     /// A colour.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub enum Colour {
///         /// Red.
///         Red = "red",
///         /// Dark blue.
///         DarkBlue = "dark-blue",
///     }
/// }
///
/// assert_eq!(Colour::ALL, [Colour::Red, Colour::DarkBlue]);
/// assert_eq!(Colour::DarkBlue.as_str(), "dark-blue");
/// assert_eq!(Colour::from_name("red"), Some(Colour::Red));
/// assert_eq!(Colour::from_name("Red"), None);
/// assert_eq!(Colour::Red.to_string(), "red");
/// assert_eq!(format!("[{:<5}]", Colour::Red), "[red  ]");
/// ```
///
/// Inside this crate, a final `from_str = "what";` also implements `FromStr` with a
/// [`PolicyError::UnknownName`](crate::PolicyError::UnknownName) for any other name: "did you
/// mean" the closest name, else "a WHAT is `A`, `B` or `C`".
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
        from_str = $what:literal;
    ) => {
        $crate::named_enum! {
            $(#[$meta])*
            $vis enum $name {
                $( $(#[$variant_meta])* $variant = $text ),+
            }
        }

        impl ::core::str::FromStr for $name {
            type Err = $crate::PolicyError;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Self::from_name(text).ok_or_else(|| {
                    $crate::PolicyError::unknown_named($what, text, &Self::ALL.map(Self::as_str))
                })
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $( $(#[$variant_meta])* $variant ),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [Self; [$($text),+].len()] = [$(Self::$variant),+];

            #[doc = concat!("The name used in files, JSON and messages: ", $("`", $text, "` "),+)]
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $text),+
                }
            }

            /// The value named `name` (exactly), if any.
            #[must_use]
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.into_iter().find(|value| value.as_str() == name)
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.pad(self.as_str())
            }
        }
    };
}
