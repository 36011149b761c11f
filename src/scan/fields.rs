//! The Python grammar's field ids, looked up once: `child_by_field_name` compares the name with
//! every field name of the grammar on each call, and the scan asks for a field millions of
//! times on a large tree.

use std::sync::OnceLock;
use tree_sitter::Node;

/// The fields the scan reads (in the order of `NAMES`).
#[derive(Debug, Clone, Copy)]
pub enum F {
    Alias,
    Alternative,
    Argument,
    Arguments,
    Attribute,
    Body,
    Condition,
    Consequence,
    Definition,
    Function,
    Key,
    Left,
    Name,
    Object,
    Operator,
    Parameters,
    Right,
    Superclasses,
    Type,
    Value,
}

/// The grammar's names of the fields, in the order of `F`.
const NAMES: [&str; 20] = [
    "alias",
    "alternative",
    "argument",
    "arguments",
    "attribute",
    "body",
    "condition",
    "consequence",
    "definition",
    "function",
    "key",
    "left",
    "name",
    "object",
    "operator",
    "parameters",
    "right",
    "superclasses",
    "type",
    "value",
];

fn ids() -> &'static [Option<u16>; 20] {
    static IDS: OnceLock<[Option<u16>; 20]> = OnceLock::new();
    IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_python::LANGUAGE.into();
        NAMES.map(|n| lang.field_id_for_name(n).map(u16::from))
    })
}

/// A node's child in a field.
pub trait Field<'t> {
    fn field(&self, f: F) -> Option<Node<'t>>;
}

impl<'t> Field<'t> for Node<'t> {
    fn field(&self, f: F) -> Option<Node<'t>> {
        ids()[f as usize].and_then(|id| self.child_by_field_id(id))
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
    }
}
