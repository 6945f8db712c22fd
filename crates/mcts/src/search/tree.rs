//! The arena tree: nodes in one `Vec`, linked by `u32` indices.
//!
//! Value perspective: a node's statistics (`value_sum`, `draw_sum`) are kept from the point of
//! view of its `mover`, the player who chose the action leading into it (for the root, the
//! player to move there). When selecting at a node, every child's mover is the player choosing,
//! so Q-values are read without any sign flip. A backed-up value is flipped exactly where the
//! mover differs from the evaluated player, so a player acting several times in a row (capture
//! chains, "end turn") never sees a spurious flip.

use crate::game::Terminal;

/// Index of a node in the arena.
pub(crate) type NodeId = u32;

/// The root always lives at index 0.
pub(crate) const ROOT: NodeId = 0;

/// "No node".
pub(crate) const NONE: NodeId = NodeId::MAX;

/// Where a node stands in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// Never reached: no state information yet.
    Fresh,
    /// Reached by a selection in the current batch; its evaluation is outstanding.
    Pending,
    /// Evaluated: its children exist.
    Expanded,
    /// The game is over here; valued exactly from the outcome.
    Terminal(Terminal),
}

/// One node (and the edge leading into it).
#[derive(Clone, Debug)]
pub(crate) struct Node<A> {
    /// Action leading into this node; `None` only at the root.
    pub action: Option<A>,
    pub parent: NodeId,
    pub first_child: NodeId,
    pub num_children: u32,
    /// Player whose point of view `value_sum` and `draw_sum` use.
    pub mover: u8,
    /// Player to move here; valid once the node is no longer `Fresh`.
    pub to_move: u8,
    pub status: Status,
    /// Prior probability of the edge from the parent (raw, without root noise).
    pub prior: f32,
    /// Evaluator's `W - L` for `to_move`; valid when `Expanded`.
    pub raw_value: f32,
    /// Completed visits (backed-up simulations).
    pub visits: u32,
    /// Selections through this node still waiting for their evaluation (virtual loss).
    pub in_flight: u32,
    /// Sum of backed-up `W - L` for `mover`.
    pub value_sum: f64,
    /// Sum of backed-up draw probabilities.
    pub draw_sum: f64,
    /// The player proven to win from here with best play (MCTS-Solver): a terminal win, a
    /// node where the player choosing has a child proven won for it, or one where every child
    /// is proven won for the other player. `None`: not proven (draws are not propagated).
    pub winner: Option<u8>,
}

impl<A> Node<A> {
    fn new(action: Option<A>, parent: NodeId, mover: u8, prior: f32) -> Self {
        Node {
            action,
            parent,
            first_child: NONE,
            num_children: 0,
            mover,
            to_move: mover,
            status: Status::Fresh,
            prior,
            raw_value: 0.0,
            visits: 0,
            in_flight: 0,
            value_sum: 0.0,
            draw_sum: 0.0,
            winner: None,
        }
    }

    /// Indices of the children (empty unless expanded).
    pub fn children(&self) -> std::ops::Range<NodeId> {
        if self.num_children == 0 {
            0..0
        } else {
            self.first_child..self.first_child + self.num_children
        }
    }

    /// Mean `W - L` for `mover`, if visited.
    pub fn q(&self) -> Option<f32> {
        (self.visits > 0).then(|| (self.value_sum / f64::from(self.visits)) as f32)
    }

    /// Mean `(W - L, D)` seen by `player`, if visited.
    pub fn value_draw_for(&self, player: u8) -> Option<(f32, f32)> {
        let n = f64::from(self.visits);
        (self.visits > 0).then(|| {
            let v = (self.value_sum / n) as f32;
            let d = (self.draw_sum / n) as f32;
            (if player == self.mover { v } else { -v }, d)
        })
    }
}

/// WDL seen by `player`, from a WDL seen by `seen_by`.
pub(crate) fn wdl_as(wdl: [f32; 3], seen_by: u8, player: u8) -> [f32; 3] {
    if seen_by == player {
        wdl
    } else {
        [wdl[2], wdl[1], wdl[0]]
    }
}

/// The arena.
#[derive(Clone, Debug)]
pub(crate) struct Tree<A> {
    pub nodes: Vec<Node<A>>,
}

impl<A: Copy> Tree<A> {
    /// A tree holding only a fresh root whose player to move is `to_move`.
    pub fn new(to_move: u8) -> Self {
        Tree {
            nodes: vec![Node::new(None, NONE, to_move, 1.0)],
        }
    }

    pub fn node(&self, id: NodeId) -> &Node<A> {
        &self.nodes[id as usize]
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node<A> {
        &mut self.nodes[id as usize]
    }

    pub fn root(&self) -> &Node<A> {
        self.node(ROOT)
    }

    /// Creates the children of a pending node. `priors` must be normalised and aligned with
    /// `actions`; `raw_value` is the evaluator's `W - L` for the node's player to move.
    pub fn expand(&mut self, id: NodeId, actions: &[A], priors: &[f32], raw_value: f32) {
        debug_assert_eq!(actions.len(), priors.len());
        let first = self.nodes.len() as NodeId;
        let mover = self.node(id).to_move;
        self.nodes.extend(
            actions
                .iter()
                .zip(priors)
                .map(|(&a, &p)| Node::new(Some(a), id, mover, p)),
        );
        let node = self.node_mut(id);
        node.first_child = first;
        node.num_children = actions.len() as u32;
        node.status = Status::Expanded;
        node.raw_value = raw_value;
    }

    /// Backs up one simulation ending at `leaf`, whose result `wdl` is seen by `player`: every
    /// node on the path to the root gains a visit and loses one in-flight selection.
    pub fn backup(&mut self, leaf: NodeId, wdl: [f32; 3], player: u8) {
        let mut id = leaf;
        while id != NONE {
            let node = self.node_mut(id);
            let [w, d, l] = wdl_as(wdl, player, node.mover);
            node.in_flight -= 1;
            node.visits += 1;
            node.value_sum += f64::from(w - l);
            node.draw_sum += f64::from(d);
            id = node.parent;
        }
    }

    /// Records that `winner` wins from `id` with best play, and carries the proof up: a parent
    /// whose player choosing is `winner` is won by that choice; a parent all of whose
    /// children are proven won for the other player is lost for the player choosing.
    pub fn prove(&mut self, id: NodeId, winner: u8) {
        let mut id = id;
        loop {
            self.node_mut(id).winner = Some(winner);
            let parent = self.node(id).parent;
            if parent == NONE {
                return;
            }
            let p = self.node(parent);
            if p.winner.is_some() {
                return;
            }
            let chooser = p.to_move;
            if winner != chooser
                && !p
                    .children()
                    .all(|c| self.node(c).winner.is_some_and(|w| w != chooser))
            {
                return;
            }
            id = parent;
        }
    }

    /// Removes one in-flight selection from every node on the path from `leaf` to the root,
    /// without adding a visit (a collision being undone).
    pub fn undo_selection(&mut self, leaf: NodeId) {
        let mut id = leaf;
        while id != NONE {
            let node = self.node_mut(id);
            node.in_flight -= 1;
            id = node.parent;
        }
    }

    /// The root's child reached on the path from the root to `id` (`None` for the root itself).
    pub fn root_child_above(&self, mut id: NodeId) -> Option<NodeId> {
        while id != ROOT {
            let parent = self.node(id).parent;
            if parent == ROOT {
                return Some(id);
            }
            id = parent;
        }
        None
    }

    /// Makes `new_root` (a child of the root) the root, keeping its subtree and statistics and
    /// dropping everything else. Children stay contiguous.
    pub fn reroot(&mut self, new_root: NodeId) {
        let old = std::mem::take(&mut self.nodes);
        let mut nodes: Vec<Node<A>> = Vec::new();
        let mut origin: Vec<NodeId> = Vec::new();
        let mut root = old[new_root as usize].clone();
        root.action = None;
        root.parent = NONE;
        nodes.push(root);
        origin.push(new_root);
        let mut i = 0;
        while i < nodes.len() {
            let from = &old[origin[i] as usize];
            if from.num_children > 0 {
                let first = nodes.len() as NodeId;
                for c in from.children() {
                    let mut child = old[c as usize].clone();
                    child.parent = i as NodeId;
                    nodes.push(child);
                    origin.push(c);
                }
                nodes[i].first_child = first;
            }
            i += 1;
        }
        self.nodes = nodes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_tree_of_fanorona_sized_nodes_stays_near_a_gibibyte() {
        // Fanorona's actions are 4 bytes; the tree's bound is stated in memory, not nodes.
        let bytes = std::mem::size_of::<Node<u32>>() * super::super::MAX_TREE_NODES;
        assert!(bytes <= 3 << 29, "{bytes} bytes");
    }

    #[test]
    fn backup_flips_only_where_the_mover_changes() {
        // Root (player 0 to move) -> a (player 0 moves again) -> b (player 1 to move).
        let mut t: Tree<u8> = Tree::new(0);
        t.node_mut(ROOT).status = Status::Pending;
        t.expand(ROOT, &[1, 2], &[0.5, 0.5], 0.0);
        let a = t.root().first_child;
        t.node_mut(a).to_move = 0;
        t.expand(a, &[3], &[1.0], 0.0);
        let b = t.node(a).first_child;
        t.node_mut(b).to_move = 1;
        for id in [ROOT, a, b] {
            t.node_mut(id).in_flight += 1;
        }
        // Player 1 (to move at b) is lost there: a win for player 0.
        t.backup(b, [0.0, 0.0, 1.0], 1);
        assert_eq!(t.node(b).mover, 0);
        assert_eq!(t.node(b).q(), Some(1.0));
        assert_eq!(t.node(a).q(), Some(1.0));
        assert_eq!(t.root().q(), Some(1.0));
        assert_eq!(t.node(b).value_draw_for(1), Some((-1.0, 0.0)));
        assert!(t.nodes.iter().all(|n| n.in_flight == 0));
    }

    #[test]
    fn proofs_go_up_through_a_winning_choice_or_when_every_choice_loses() {
        // Root: player 0 chooses between a and b. Below a, player 1 chooses between c and d;
        // below b, player 0 moves again (a capture chain) and chooses between e and f.
        let mut t: Tree<u8> = Tree::new(0);
        t.expand(ROOT, &[1, 2], &[0.5, 0.5], 0.0);
        let (a, b) = (t.root().first_child, t.root().first_child + 1);
        t.node_mut(a).to_move = 1;
        t.expand(a, &[3, 4], &[0.5, 0.5], 0.0);
        let (c, d) = (t.node(a).first_child, t.node(a).first_child + 1);
        t.node_mut(b).to_move = 0;
        t.expand(b, &[5, 6], &[0.5, 0.5], 0.0);
        let (e, f) = (t.node(b).first_child, t.node(b).first_child + 1);
        // One child of a won for player 0: player 1 still has d.
        t.prove(c, 0);
        assert_eq!(t.node(a).winner, None);
        // e won for player 1: player 0 (choosing at b) still has f.
        t.prove(e, 1);
        assert_eq!(t.node(b).winner, None);
        // d won for player 0 too: a is lost for player 1, so player 0 wins by choosing a.
        t.prove(d, 0);
        assert_eq!(t.node(a).winner, Some(0));
        assert_eq!(t.root().winner, Some(0));
        assert_eq!(t.node(b).winner, None, "b's own proof is not needed");
        // Every choice of player 0 at b lost: b is won for player 1 (the same mover twice).
        t.prove(f, 1);
        assert_eq!(t.node(b).winner, Some(1));
        assert_eq!(t.root().winner, Some(0), "a proof stays");
    }

    #[test]
    fn reroot_keeps_the_subtree_and_its_statistics() {
        let mut t: Tree<u8> = Tree::new(0);
        t.expand(ROOT, &[1, 2], &[0.5, 0.5], 0.0);
        let (a, b) = (t.root().first_child, t.root().first_child + 1);
        t.node_mut(b).to_move = 1;
        t.expand(b, &[7, 8, 9], &[0.2, 0.3, 0.5], 0.1);
        t.node_mut(a).visits = 3;
        t.node_mut(b).visits = 5;
        t.node_mut(b).value_sum = 2.0;
        t.reroot(b);
        assert_eq!(t.nodes.len(), 4);
        assert_eq!(t.root().visits, 5);
        assert_eq!(t.root().value_sum, 2.0);
        assert_eq!(t.root().parent, NONE);
        let actions: Vec<u8> = t
            .root()
            .children()
            .map(|c| t.node(c).action.unwrap())
            .collect();
        assert_eq!(actions, [7, 8, 9]);
        assert!(t.root().children().all(|c| t.node(c).parent == ROOT));
    }
}
