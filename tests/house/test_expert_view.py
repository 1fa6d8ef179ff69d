"""The Face to Face expert's View built straight from a position (what the analysis's rollouts use) is the View the
bot builds from its observation with full memory of its own plays, field for field, so its turns are the bot's."""

import games
from bots.house import expert_face_to_face, load_house_bot


def test_the_view_of_a_position_equals_the_view_of_the_observation():
    for seed in range(6):
        bots = [load_house_bot("expert"), load_house_bot("greedy")]
        state = games.new_game("face-to-face", seed=f"view:{seed}", start_seat=seed % 2)
        played = [set(), set()]
        while state.outcome is None:
            seat, other = state.to_move, 1 - state.to_move
            observation = state.observation(seat)
            from_observation = expert_face_to_face.View(observation, played[seat])
            from_position = expert_face_to_face.View.of_position(
                seat,
                state.tops,
                state.hands[seat],
                state.draw_piles_reversed[seat],
                state.hands[other] + state.draw_piles_reversed[other],
                len(state.draw_piles_reversed[other]),
            )
            assert vars(from_position) == vars(from_observation)
            assert expert_face_to_face.best_turn(from_position) == expert_face_to_face.best_turn(from_observation)
            turn = bots[(seat + seed) % 2].play(observation)
            plays = turn["plays"] if isinstance(turn, dict) else turn
            played[seat].update(card for card, _ in plays)
            state.push(turn)
