//! The Python grammar's field ids and node kind names, looked up once: `child_by_field_name`
//! compares the name with every field name of the grammar on each call, and `kind` measures and
//! checks the kind's C string each time; the scan asks millions of times on a large tree.

use std::sync::OnceLock;
use tree_sitter::Node;

/// The fields the scan reads: `F` and the grammar's names from one list.
macro_rules! fields {
    ($($variant:ident = $name:literal,)*) => {
        #[derive(Debug, Clone, Copy)]
        pub enum F {
            $($variant,)*
        }

        /// The grammar's names of the fields, in the order of `F`.
        const NAMES: &[&str] = &[$($name,)*];
    };
}

fields! {
    Alias = "alias",
    Alternative = "alternative",
    Argument = "argument",
    Arguments = "arguments",
    Attribute = "attribute",
    Body = "body",
    Condition = "condition",
    Consequence = "consequence",
    Definition = "definition",
    Function = "function",
    Key = "key",
    Left = "left",
    Name = "name",
    Object = "object",
    Operator = "operator",
    Parameters = "parameters",
    Right = "right",
    Superclasses = "superclasses",
    Type = "type",
    Value = "value",
}

fn ids() -> &'static [Option<u16>] {
    static IDS: OnceLock<Vec<Option<u16>>> = OnceLock::new();
    IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        NAMES.iter().map(|n| lang.field_id_for_name(n).map(u16::from)).collect()
    })
}

/// The grammar's kind names by kind id.
fn kinds() -> &'static [&'static str] {
    static KINDS: OnceLock<Vec<&'static str>> = OnceLock::new();
    KINDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        (0..lang.node_kind_count()).map(|id| lang.node_kind_for_id(id as u16).unwrap_or("")).collect()
    })
}

/// A node's child in a field, and its kind's name.
pub trait Field<'t> {
    fn field(&self, f: F) -> Option<Node<'t>>;
    fn kind_name(&self) -> &'static str;
}

impl<'t> Field<'t> for Node<'t> {
    fn field(&self, f: F) -> Option<Node<'t>> {
        ids()[f as usize].and_then(|id| self.child_by_field_id(id))
    }

    fn kind_name(&self) -> &'static str {
        kinds().get(usize::from(self.kind_id())).copied().unwrap_or_else(|| self.kind())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_in_the_grammar() {
        assert!(ids().iter().all(Option::is_some));
        let src = "def f(x):\n    return x + 1\n";
        let mut p = tree_sitter::Parser::new();
        p.set_language(&tree_sitter_python::LANGUAGE.into()).unwrap();
        let tree = p.parse(src, None).unwrap();
        let def = tree.root_node().child(0).unwrap();
        assert_eq!(def.field(F::Name).map(|n| &src[n.byte_range()]), Some("f"));
        assert_eq!(def.field(F::Body).map(|n| n.kind()), def.child_by_field_name("body").map(|n| n.kind()));
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            assert_eq!(n.kind_name(), n.kind());
            stack.extend((0..n.child_count()).filter_map(|i| n.child(i)));
        }
    }
}
