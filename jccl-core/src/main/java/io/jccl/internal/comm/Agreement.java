package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import io.jccl.internal.base.CommHealth;
import io.jccl.internal.transport.PeerExchange;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A collective yes-or-no over the bootstrap: every rank sends the operation it called and its reason to refuse ("" to
 * go ahead) in one allGather; unless all called the same operation with no reason, every rank throws, naming every
 * reason and the ranks that called another operation. So a suspend or resume happens on all ranks or on none.
 *
 * <p>Stateless; the communicator's caller. Mirrors: the bootstrap barrier NCCL's ncclCommSuspend starts with, made
 * to carry refusals.
 */
public final class Agreement {
    private Agreement() {
    }

    /**
     * Agrees on {@code what} for the communicator {@code commId} (this rank {@code rank}), with this rank's
     * {@code reason} to refuse ("" to go ahead). A broken communicator throws its failure without asking; a failed
     * exchange breaks it.
     *
     * @throws JcclException {@link Result#INVALID_USAGE} on every rank when any rank refused or called another
     *                       operation
     */
    public static void agree(PeerExchange exchange, CommHealth health, int rank, String commId, String what,
                             String reason) {
        health.check("rank " + rank + ": " + what);
        byte[][] all;
        try {
            all = exchange.allGather((what + ":" + reason).getBytes(StandardCharsets.UTF_8));
        } catch (JcclException e) {
            throw health.fail(e);
        }
        List<String> refusals = new ArrayList<>();
        for (int r = 0; r < all.length; r++) {
            String vote = new String(all[r], StandardCharsets.UTF_8);
            int colon = vote.indexOf(':');
            String op = colon < 0 ? vote : vote.substring(0, colon);
            if (!op.equals(what)) {
                refusals.add("rank " + r + " called " + op);
            } else if (colon + 1 < vote.length()) {
                refusals.add(vote.substring(colon + 1));
            }
        }
        if (!refusals.isEmpty()) {
            throw new JcclException(Result.INVALID_USAGE, "rank " + rank + ": " + what + " of communicator " + commId
                    + " refused on every rank: " + String.join("; ", refusals));
        }
    }
}
