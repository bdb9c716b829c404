package io.jccl.internal.comm;

import io.jccl.JcclException;
import io.jccl.Result;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalCloseGroupTest {

    @Test
    void theLastMemberToArriveFinishesEveryoneOnce() {
        LocalCloseGroup g = new LocalCloseGroup(3);
        List<Integer> finished = new ArrayList<>();
        g.arrive(2, () -> finished.add(2));
        g.arrive(2, () -> finished.add(99)); // a second close of the same member counts once
        g.arrive(0, () -> finished.add(0));
        assertThat(finished).as("nothing is released before every member arrived").isEmpty();
        assertThat(g.complete()).isFalse();
        g.arrive(1, null); // aborted or closed in a group: nothing left to finish
        assertThat(finished).containsExactly(2, 0);
        assertThat(g.complete()).isTrue();
        g.arrive(1, () -> finished.add(7));
        assertThat(finished).containsExactly(2, 0);
    }

    @Test
    void everyFinishRunsEvenWhenOneFailsAndTheFirstFailureIsRethrown() {
        LocalCloseGroup g = new LocalCloseGroup(2);
        List<Integer> finished = new ArrayList<>();
        g.arrive(0, () -> {
            throw new JcclException(Result.SYSTEM_ERROR, "rank 0 failed to release");
        });
        assertThatThrownBy(() -> g.arrive(1, () -> finished.add(1)))
                .isInstanceOf(JcclException.class).hasMessageContaining("rank 0 failed to release");
        assertThat(finished).containsExactly(1);
    }
}
