// Indexed 4-ary min-heaps of pending clock completions keyed by server slot, allocation-free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

namespace sgdnet::solver {

/// 4-ary min-heap of (time, id) (half the depth of a binary heap, children in one cache line)
/// with O(log n) push/update/erase by id. Ties on time are broken by the smaller id, so the
/// order never depends on the history of operations. The position of each id is kept in an
/// array the caller passes to every call, so several heaps over disjoint ids can share one
/// array (SimEngine's share groups); ids are dense integers below that array's size.
class IndexedHeap {
public:
    static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    struct Entry {
        double time;
        uint32_t id;
    };
    using Positions = std::vector<uint32_t>;

    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    /// Id with the smallest time; precondition: !empty().
    uint32_t top() const { return heap_[0].id; }
    /// Smallest time (+inf when empty).
    double top_time() const {
        return heap_.empty() ? std::numeric_limits<double>::infinity() : heap_[0].time;
    }
    /// Every entry, in heap order.
    const std::vector<Entry>& entries() const { return heap_; }
    void reserve(std::size_t n) { heap_.reserve(n); }
    /// Scheduled time of a contained id.
    double time(const Positions& pos, uint32_t id) const { return heap_[pos[id]].time; }

    /// Inserts id (not contained) at time t.
    void push(Positions& pos, uint32_t id, double t) {
        const uint32_t i = static_cast<uint32_t>(heap_.size());
        heap_.push_back({t, id});
        pos[id] = i;
        sift_up(pos, i);
    }
    /// Changes the time of a contained id.
    void update(Positions& pos, uint32_t id, double t) {
        const uint32_t i = pos[id];
        const double old = heap_[i].time;
        heap_[i].time = t;
        if (t < old) sift_up(pos, i);
        else sift_down(pos, i);
    }
    /// Removes a contained id.
    void erase(Positions& pos, uint32_t id) {
        const uint32_t i = pos[id];
        pos[id] = kNone;
        const Entry last = heap_.back();
        heap_.pop_back();
        if (i == heap_.size()) return;
        heap_[i] = last;
        pos[last.id] = i;
        if (i > 0 && less(last, heap_[(i - 1) / 4])) sift_up(pos, i);
        else sift_down(pos, i);
    }
    void clear(Positions& pos) {
        for (const Entry& e : heap_) pos[e.id] = kNone;
        heap_.clear();
    }

private:
    static bool less(const Entry& a, const Entry& b) {
        return a.time < b.time || (a.time == b.time && a.id < b.id);
    }
    void sift_up(Positions& pos, uint32_t i) {
        const Entry e = heap_[i];
        while (i > 0) {
            const uint32_t p = (i - 1) / 4;
            if (!less(e, heap_[p])) break;
            heap_[i] = heap_[p];
            pos[heap_[i].id] = i;
            i = p;
        }
        heap_[i] = e;
        pos[e.id] = i;
    }
    void sift_down(Positions& pos, uint32_t i) {
        const Entry e = heap_[i];
        const uint32_t n = static_cast<uint32_t>(heap_.size());
        for (;;) {
            const uint32_t first = 4 * i + 1;
            if (first >= n) break;
            uint32_t c = first;
            const uint32_t end = std::min(first + 4, n);
            for (uint32_t k = first + 1; k < end; ++k)
                if (less(heap_[k], heap_[c])) c = k;
            if (!less(heap_[c], e)) break;
            heap_[i] = heap_[c];
            pos[heap_[i].id] = i;
            i = c;
        }
        heap_[i] = e;
        pos[e.id] = i;
    }
    std::vector<Entry> heap_;
};

/// An IndexedHeap that owns its positions: the simulator's event queue. Capacity grows with
/// reserve() and is never shrunk, so a steady state allocates nothing.
class EventQueue {
public:
    static constexpr uint32_t kNone = IndexedHeap::kNone;

    /// Makes ids [0, n) usable.
    void reserve(uint32_t n) {
        if (n > pos_.size()) pos_.resize(n, kNone);
        heap_.reserve(n);
    }
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    /// Id with the smallest time; precondition: !empty().
    uint32_t top() const { return heap_.top(); }
    /// Smallest time (+inf when empty).
    double top_time() const { return heap_.top_time(); }
    bool contains(uint32_t id) const { return id < pos_.size() && pos_[id] != kNone; }
    /// Scheduled time of a contained id.
    double time(uint32_t id) const { return heap_.time(pos_, id); }
    /// Inserts id (not contained; id < reserved capacity) at time t.
    void push(uint32_t id, double t) { heap_.push(pos_, id, t); }
    /// Changes the time of a contained id.
    void update(uint32_t id, double t) { heap_.update(pos_, id, t); }
    /// Removes a contained id.
    void erase(uint32_t id) { heap_.erase(pos_, id); }
    /// Removes the top; precondition: !empty().
    void pop() { heap_.erase(pos_, heap_.top()); }
    void clear() { heap_.clear(pos_); }

private:
    IndexedHeap heap_;
    std::vector<uint32_t> pos_;
};

}  // namespace sgdnet::solver
