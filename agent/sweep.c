/* SPDX-License-Identifier: Apache-2.0 */
#define _GNU_SOURCE
#include "sweep.h"

#include "util.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_proc(const void* a, const void* b) {
    pid_t x = ((const struct proc*)a)->pid, y = ((const struct proc*)b)->pid;
    return (x > y) - (x < y);
}

/* Every process but the agent, sorted by pid, into the scratch array; returns how many. */
static size_t scan_proc(struct agent_state* st) {
    struct scratch* s = &st->scratch;
    size_t n = 0;
    DIR* d = opendir("/proc");
    if (!d) {
        return 0;
    }
    struct dirent* e;
    while ((e = readdir(d)) != NULL) {
        char* end;
        long pid = strtol(e->d_name, &end, 10);
        if (*e->d_name < '1' || *e->d_name > '9' || *end || pid == st->self_pid) {
            continue;
        }
        char path[64];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (read_file(path, &s->file, &s->filecap) == 0) {
            continue;
        }
        /* "pid (comm) S ppid ...": comm may hold anything, so parse after the last ')'. */
        char* rp = strrchr(s->file, ')');
        char state;
        int ppid, pgrp, sid;
        unsigned long long start;
        /* fields 3 to 6 (state, ppid, pgrp, session), then 22 (starttime) */
        if (!rp
            || sscanf(rp + 1, " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &state,
                      &ppid, &pgrp, &sid, &start)
                   != 5) {
            continue;
        }
        if (n == s->procscap) {
            s->procscap = s->procscap ? s->procscap * 2 : 256;
            s->procs = xrealloc(s->procs, s->procscap * sizeof *s->procs);
        }
        s->procs[n++] =
            (struct proc){.pid = (pid_t)pid, .ppid = ppid, .sid = sid, .start = start, .state = state, .mark = 0};
    }
    closedir(d);
    qsort(s->procs, n, sizeof *s->procs, cmp_proc);
    return n;
}

/* The ZEUS_CALL_TAG a process carries in its environment, if any (into out, NUL-terminated). */
static int env_tag(struct agent_state* st, pid_t pid, char out[TAG_LEN + 1]) {
    struct scratch* s = &st->scratch;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    size_t len = read_file(path, &s->env, &s->envcap);
    static const char key[] = "ZEUS_CALL_TAG=";
    int found = 0;
    for (size_t i = 0; i < len && !found;) {
        size_t l = strnlen(s->env + i, len - i);
        if (l == sizeof key - 1 + TAG_LEN && memcmp(s->env + i, key, sizeof key - 1) == 0) {
            memcpy(out, s->env + i + sizeof key - 1, TAG_LEN);
            out[TAG_LEN] = 0;
            found = 1;
        }
        i += l + 1;
    }
    wipe(s->env, len); /* another command's environment, secrets included: no copy stays here */
    return found;
}

struct tagrec* find_tag(struct agent_state* st, const char* tag) {
    for (size_t k = st->ntags; k-- > 0;) {
        if (memcmp(st->tags[k].tag, tag, TAG_LEN) == 0) {
            return &st->tags[k];
        }
    }
    return NULL;
}

size_t sweep_all(struct agent_state* st, int kill_them) {
    size_t n = scan_proc(st), found = 0;
    struct proc* procs = st->scratch.procs;
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (procs[i].mark) {
                continue;
            }
            int in = procs[i].ppid == st->self_pid;
            if (!in) {
                struct proc key = {.pid = procs[i].ppid};
                struct proc* parent = bsearch(&key, procs, n, sizeof *procs, cmp_proc);
                in = parent && parent->mark;
            }
            if (in) {
                procs[i].mark = 1;
                changed = 1;
            }
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (procs[i].state == 'Z' || procs[i].state == 'X') {
            continue;
        }
        char tag[TAG_LEN + 1];
        if (procs[i].pid == 1 || (!procs[i].mark && !(env_tag(st, procs[i].pid, tag) && find_tag(st, tag)))) {
            continue;
        }
        found++;
        if (kill_them) {
            kill(procs[i].pid, SIGKILL);
        }
    }
    return found;
}

enum { V_UNDECIDED = 0, V_IN, V_OUT };

/* What one process says about itself, for the stop of call c: V_IN (c's), V_OUT (not c's) or V_UNDECIDED (its
 * parent decides). Every test but the tag's rests on what a process cannot change or fake: its pid, its
 * session (it can only leave one for a new one of its own), its parent and its start time. */
static int judge(struct agent_state* st, const struct call* c, const struct proc* p) {
    if (p->pid == 1) {
        return V_OUT; /* the container's init: never */
    }
    if (p->pid == c->pid && !c->reaped) {
        return V_IN;
    }
    for (int i = 0; i < MAX_CALLS; i++) {
        const struct call* d = &st->calls[i];
        if (d->used && d != c && !d->reaped && p->pid == d->pid) {
            return V_OUT; /* another call's shell, maybe before its own setsid */
        }
    }
    /* The call's shell leads its own session, and a session is inherited only: a process in the shell's session
     * descends from it. The id stays the shell's while anyone is in that session, even after the shell is gone. */
    if (p->sid == c->pid) {
        return V_IN;
    }
    for (int i = 0; i < MAX_CALLS; i++) {
        const struct call* d = &st->calls[i];
        if (d->used && d != c && p->sid == d->pid) {
            return V_OUT;
        }
    }
    char tag[TAG_LEN + 1];
    if (env_tag(st, p->pid, tag)) {
        if (memcmp(tag, c->tag, TAG_LEN) == 0) {
            return V_IN; /* whoever carries this call's tag goes with it, a copied one included */
        }
        /* Another call's tag counts only on a process that started during that call: a copied tag does not
         * shelter a process started later. */
        const struct tagrec* r = find_tag(st, tag);
        if (r && r->start <= p->start && p->start <= r->end) {
            return V_OUT;
        }
    }
    if (p->ppid == st->self_pid) {
        /* An orphan re-parented to the agent (the subreaper) whose own process says nothing: its start time
         * does. Started since this call's shell (in the same clock tick: a higher pid), it is this call's. */
        return p->start > c->start || (p->start == c->start && p->pid >= c->pid) ? V_IN : V_OUT;
    }
    return V_UNDECIDED;
}

/* Each process is judged by itself, else by its nearest ancestor that says something; a process whose ancestors
 * say nothing up to one outside the agent's tree is not the call's. */
size_t sweep_call(struct agent_state* st, const struct call* c, int kill_them) {
    struct scratch* s = &st->scratch;
    size_t n = scan_proc(st), found = 0;
    struct proc* procs = s->procs;
    if (s->pathcap < n) {
        s->pathcap = n;
        s->path = xrealloc(s->path, s->pathcap * sizeof *s->path);
    }
    for (size_t i = 0; i < n; i++) {
        size_t depth = 0, j = i;
        int v;
        for (;;) {
            v = procs[j].mark ? procs[j].mark : judge(st, c, &procs[j]);
            if (v != V_UNDECIDED) {
                break;
            }
            struct proc key = {.pid = procs[j].ppid};
            struct proc* parent = key.pid > 0 ? bsearch(&key, procs, n, sizeof *procs, cmp_proc) : NULL;
            if (!parent || depth == n) {
                v = V_OUT; /* above the agent's tree (or a loop of reused pids in a scan that is not atomic) */
                break;
            }
            s->path[depth++] = j;
            j = (size_t)(parent - procs);
        }
        procs[j].mark = v;
        while (depth > 0) {
            procs[s->path[--depth]].mark = v;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (procs[i].mark != V_IN || procs[i].state == 'Z' || procs[i].state == 'X') {
            continue;
        }
        found++;
        if (kill_them) {
            kill(procs[i].pid, SIGKILL);
        }
    }
    return found;
}
