// Package authz owns the rules of authorization (docs/security.md): who a
// caller is (Principal), what it holds (Grant), the default grants of a
// pane's principal, creator rights, delegation, and the decision whether
// a principal holds a right on a resource. Its Table keeps the data those
// decisions read — creators, pane principals' grants, frozen containment
// and denial counts — and is used under the caller's lock; what the live
// model knows of containment comes in through a Model. It neither locks,
// logs nor reads /proc.
package authz
