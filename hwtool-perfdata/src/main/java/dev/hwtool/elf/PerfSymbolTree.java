package dev.hwtool.elf;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A DSO's symbols in the red-black tree perf keeps them in, node for node: where symbols overlap
 * (a sizeless symbol extended over the PLT, say: {@code _init} before .plt in every glibc program),
 * perf's answer for an address is the first symbol holding it on the path from the root, so the
 * tree's shape decides the name. The shape follows from the order of inserts and erases, which
 * are perf 6.1's (tools/perf/util/symbol.c {@code __symbols__insert}, {@code symbols__fixup_end},
 * {@code symbols__fixup_duplicate}, {@code symbols__find}) on the kernel's red-black tree
 * (lib/rbtree.c {@code __rb_insert}, {@code ____rb_erase_color}; include/linux/rbtree_augmented.h
 * {@code __rb_erase_augmented}), each step here as it is there.
 */
final class PerfSymbolTree {

    private static final class Node {
        final SymbolTable.Entry entry;
        long end;
        Node left;
        Node right;
        Node parent;
        boolean red;

        Node(SymbolTable.Entry entry) {
            this.entry = entry;
            this.end = entry.end();
        }

        long start() {
            return entry.start();
        }

        SymbolTable.Entry fixed() {
            return end == entry.end() ? entry : entry.withEnd(end);
        }
    }

    private static final long PAGE = 4096;

    private Node root;

    /** {@code __symbols__insert}: down left while the start is below a node's, else right (an equal start goes right). */
    void insert(SymbolTable.Entry e) {
        Node parent = null;
        Node cur = root;
        boolean left = false;
        while (cur != null) {
            parent = cur;
            left = Long.compareUnsigned(e.start(), cur.start()) < 0;
            cur = left ? cur.left : cur.right;
        }
        Node n = new Node(e);
        n.parent = parent;
        n.red = true;
        if (parent == null) {
            root = n;
        } else if (left) {
            parent.left = n;
        } else {
            parent.right = n;
        }
        insertColor(n);
    }

    /**
     * {@code symbols__fixup_end}: in tree order, a sizeless symbol ends where the next one starts
     * (in kallsyms, the last of the kernel or of a module at the page boundary after the next page,
     * module text lying far from the kernel's);
     * the last sizeless one one page past its start's page boundary.
     */
    void fixupEnd(boolean kallsyms) {
        Node prev = first();
        if (prev == null) {
            return;
        }
        for (Node curr = next(prev); curr != null; prev = curr, curr = next(curr)) {
            if (prev.end != prev.start()) {
                continue;
            }
            boolean prevMod = !prev.entry.module().isEmpty();
            boolean currMod = !curr.entry.module().isEmpty();
            if (kallsyms && (prevMod != currMod || prevMod && !prev.entry.module().equals(curr.entry.module()))) {
                prev.end = roundUp(prev.end + PAGE);
            } else {
                prev.end = curr.start();
            }
        }
        if (prev.end == prev.start()) {
            prev.end = roundUp(prev.start()) + PAGE;
        }
    }

    /**
     * {@code symbols__fixup_duplicate}: walking the tree in order, of two neighbours with one start
     * the one {@code choose_best_symbol} prefers stays; the other is erased from the tree.
     */
    void fixupDuplicate() {
        Node nd = first();
        while (nd != null) {
            Node curr = nd;
            while (true) {
                nd = next(curr);
                if (nd == null || curr.start() != nd.start()) {
                    break;
                }
                if (SymbolTable.prefersFirst(curr.fixed(), nd.fixed())) {
                    erase(nd);
                } else {
                    nd = next(curr);
                    erase(curr);
                    break;
                }
            }
        }
    }

    /** {@code symbols__find}: from the root, left below a start, right at or past an end, else this one. */
    Optional<SymbolTable.Entry> find(long ip) {
        Node n = root;
        while (n != null) {
            if (Long.compareUnsigned(ip, n.start()) < 0) {
                n = n.left;
            } else if (Long.compareUnsigned(ip, n.end) > 0 || ip == n.end && ip != n.start()) {
                n = n.right;
            } else {
                return Optional.of(n.fixed());
            }
        }
        return Optional.empty();
    }

    /** The symbols in tree order, with their fixed-up ends. */
    List<SymbolTable.Entry> entries() {
        List<SymbolTable.Entry> out = new ArrayList<>();
        for (Node n = first(); n != null; n = next(n)) {
            out.add(n.fixed());
        }
        return out;
    }

    private Node first() {
        Node n = root;
        while (n != null && n.left != null) {
            n = n.left;
        }
        return n;
    }

    /** {@code rb_next}. */
    private static Node next(Node node) {
        if (node.right != null) {
            Node n = node.right;
            while (n.left != null) {
                n = n.left;
            }
            return n;
        }
        Node n = node;
        Node parent = n.parent;
        while (parent != null && n == parent.right) {
            n = parent;
            parent = n.parent;
        }
        return parent;
    }

    private static long roundUp(long x) {
        return (x + PAGE - 1) & -PAGE;
    }

    private void changeChild(Node old, Node neu, Node parent) {
        if (parent == null) {
            root = neu;
        } else if (parent.left == old) {
            parent.left = neu;
        } else {
            parent.right = neu;
        }
    }

    /** {@code __rb_rotate_set_parents}: NEU takes OLD's parent and colour, OLD goes under NEU with COLOUR. */
    private void rotateSetParents(Node old, Node neu, boolean red) {
        Node parent = old.parent;
        neu.parent = parent;
        neu.red = old.red;
        old.parent = neu;
        old.red = red;
        changeChild(old, neu, parent);
    }

    /** {@code __rb_insert}. */
    private void insertColor(Node node) {
        Node parent = node.parent;
        while (true) {
            if (parent == null) {
                node.parent = null;
                node.red = false;
                return;
            }
            if (!parent.red) {
                return;
            }
            Node gparent = parent.parent;
            Node tmp = gparent.right;
            if (parent != tmp) { // parent == gparent.left
                if (tmp != null && tmp.red) { // case 1: uncle red, colour flips
                    tmp.red = false;
                    parent.red = false;
                    node = gparent;
                    parent = node.parent;
                    node.red = true;
                    continue;
                }
                tmp = parent.right;
                if (node == tmp) { // case 2: left rotate at parent
                    tmp = node.left;
                    parent.right = tmp;
                    node.left = parent;
                    if (tmp != null) {
                        tmp.parent = parent;
                        tmp.red = false;
                    }
                    parent.parent = node;
                    parent.red = true;
                    parent = node;
                    tmp = node.right;
                }
                // case 3: right rotate at gparent
                gparent.left = tmp;
                parent.right = gparent;
                if (tmp != null) {
                    tmp.parent = gparent;
                    tmp.red = false;
                }
                rotateSetParents(gparent, parent, true);
                return;
            } else {
                tmp = gparent.left;
                if (tmp != null && tmp.red) {
                    tmp.red = false;
                    parent.red = false;
                    node = gparent;
                    parent = node.parent;
                    node.red = true;
                    continue;
                }
                tmp = parent.left;
                if (node == tmp) {
                    tmp = node.right;
                    parent.left = tmp;
                    node.right = parent;
                    if (tmp != null) {
                        tmp.parent = parent;
                        tmp.red = false;
                    }
                    parent.parent = node;
                    parent.red = true;
                    parent = node;
                    tmp = node.left;
                }
                gparent.right = tmp;
                parent.left = gparent;
                if (tmp != null) {
                    tmp.parent = gparent;
                    tmp.red = false;
                }
                rotateSetParents(gparent, parent, true);
                return;
            }
        }
    }

    /** {@code rb_erase}: {@code __rb_erase_augmented}, then {@code ____rb_erase_color} where a black node went. */
    private void erase(Node node) {
        Node child = node.right;
        Node tmp = node.left;
        Node rebalance;
        if (tmp == null) { // at most a right child: it takes node's place and colour
            Node parent = node.parent;
            boolean wasRed = node.red;
            changeChild(node, child, parent);
            if (child != null) {
                child.parent = parent;
                child.red = wasRed;
                rebalance = null;
            } else {
                rebalance = wasRed ? null : parent;
            }
        } else if (child == null) { // only a left child
            tmp.parent = node.parent;
            tmp.red = node.red;
            changeChild(node, tmp, node.parent);
            rebalance = null;
        } else {
            Node successor = child;
            Node parent;
            Node child2;
            tmp = child.left;
            if (tmp == null) { // the successor is the right child
                parent = successor;
                child2 = successor.right;
            } else { // the successor is the leftmost of the right subtree
                do {
                    parent = successor;
                    successor = tmp;
                    tmp = tmp.left;
                } while (tmp != null);
                child2 = successor.right;
                parent.left = child2;
                successor.right = child;
                child.parent = successor;
            }
            tmp = node.left;
            successor.left = tmp;
            tmp.parent = successor;
            Node nodeParent = node.parent;
            boolean nodeRed = node.red;
            changeChild(node, successor, nodeParent);
            if (child2 != null) {
                child2.parent = parent;
                child2.red = false;
                rebalance = null;
            } else {
                rebalance = successor.red ? null : parent;
            }
            successor.parent = nodeParent;
            successor.red = nodeRed;
        }
        if (rebalance != null) {
            eraseColor(rebalance);
        }
    }

    /** {@code ____rb_erase_color}: restore the black heights below PARENT, one side a black short. */
    private void eraseColor(Node parent) {
        Node node = null;
        while (true) {
            Node sibling = parent.right;
            Node tmp1;
            Node tmp2;
            if (node != sibling) { // node == parent.left
                if (sibling.red) { // case 1: left rotate at parent
                    tmp1 = sibling.left;
                    parent.right = tmp1;
                    sibling.left = parent;
                    tmp1.parent = parent;
                    tmp1.red = false;
                    rotateSetParents(parent, sibling, true);
                    sibling = tmp1;
                }
                tmp1 = sibling.right;
                if (tmp1 == null || !tmp1.red) {
                    tmp2 = sibling.left;
                    if (tmp2 == null || !tmp2.red) { // case 2: sibling colour flip
                        sibling.parent = parent;
                        sibling.red = true;
                        if (parent.red) {
                            parent.red = false;
                        } else {
                            node = parent;
                            parent = node.parent;
                            if (parent != null) {
                                continue;
                            }
                        }
                        return;
                    }
                    // case 3: right rotate at sibling
                    tmp1 = tmp2.right;
                    sibling.left = tmp1;
                    tmp2.right = sibling;
                    parent.right = tmp2;
                    if (tmp1 != null) {
                        tmp1.parent = sibling;
                        tmp1.red = false;
                    }
                    tmp1 = sibling;
                    sibling = tmp2;
                }
                // case 4: left rotate at parent, colour flips
                tmp2 = sibling.left;
                parent.right = tmp2;
                sibling.left = parent;
                tmp1.parent = sibling;
                tmp1.red = false;
                if (tmp2 != null) {
                    tmp2.parent = parent;
                }
                rotateSetParents(parent, sibling, false);
                return;
            } else {
                sibling = parent.left;
                if (sibling.red) {
                    tmp1 = sibling.right;
                    parent.left = tmp1;
                    sibling.right = parent;
                    tmp1.parent = parent;
                    tmp1.red = false;
                    rotateSetParents(parent, sibling, true);
                    sibling = tmp1;
                }
                tmp1 = sibling.left;
                if (tmp1 == null || !tmp1.red) {
                    tmp2 = sibling.right;
                    if (tmp2 == null || !tmp2.red) {
                        sibling.parent = parent;
                        sibling.red = true;
                        if (parent.red) {
                            parent.red = false;
                        } else {
                            node = parent;
                            parent = node.parent;
                            if (parent != null) {
                                continue;
                            }
                        }
                        return;
                    }
                    tmp1 = tmp2.left;
                    sibling.right = tmp1;
                    tmp2.left = sibling;
                    parent.left = tmp2;
                    if (tmp1 != null) {
                        tmp1.parent = sibling;
                        tmp1.red = false;
                    }
                    tmp1 = sibling;
                    sibling = tmp2;
                }
                tmp2 = sibling.right;
                parent.left = tmp2;
                sibling.right = parent;
                tmp1.parent = sibling;
                tmp1.red = false;
                if (tmp2 != null) {
                    tmp2.parent = parent;
                }
                rotateSetParents(parent, sibling, false);
                return;
            }
        }
    }
}
