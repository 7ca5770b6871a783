"""Which tests are slow and which must run in one pytest-xdist worker, by path and name (applied by the root
conftest), so that no test file needs a marker of its own and the lists are read in one place.

The suite runs with `-n auto --dist loadgroup` (pyproject.toml): each worker takes tests one by one, except
that all tests of a group go to one worker, one after another:
- "terminal": the app on a pseudo-terminal and the tmux tests (subprocesses reading a pty against a clock);
- "output-stage": the output stage's recorded-session replays (frame timing under load);
- "llama": the interop tests, which share one llama.cpp server per worker (a ~250 MB model, 2 slots);
- "big-store": the tests on a copy of the damaged big store, built once per worker (`big_store_template`).

`slow` marks what the quick loop (`python -m pytest -m "not slow"`) leaves out: the interop tests and every test
that took 3 s or more in a serial run on 2 shared cores (`--durations=0`), a whole file where all of its tests
did. A test that grows slow joins the list; `tests/test_suite_plan.py` checks that every entry still names a
test file or function.
"""

from __future__ import annotations

import os

import pytest

#: group → path prefixes (of a node id: a folder, a file, or a file::test)
GROUPS: dict[str, tuple[str, ...]] = {
    "terminal": (
        "tests/tui/platform/test_hostile_terminal.py",
        "tests/tui/platform/test_kitty_graphics.py",
        "tests/tui/platform/test_terminal_gone.py",
        "tests/tui/main/test_leaving.py",
        "tests/tui/common/test_copying.py",
        "tests/tui/start/test_no_color.py::test_the_real_app_under_no_color_writes_no_colour_but_keeps_boxes_and_styles",
        "tests/tui/start/test_no_color.py::test_without_no_color_the_same_start_is_in_colour",
    ),
    "output-stage": ("tests/tui/platform/test_output_stage.py",),
    "llama": ("tests/interop/", "tests/engine/context/test_real_llama.py"),
}
#: group → fixture names: a test that uses one of these is in the group
FIXTURE_GROUPS: dict[str, tuple[str, ...]] = {
    "big-store": ("big_store_template", "damaged_big_home"),
}

#: node-id prefixes of the slow tests
SLOW: tuple[str, ...] = (
    "tests/interop/",
    "tests/tui/main/test_attach_files.py",
    "tests/tui/compare/test_compare_attachments.py",
    "tests/tui/compare/test_compare_compaction.py",
    "tests/tui/main/test_auto_compaction.py",
    "tests/tui/main/test_family_totals.py",
    "tests/engine/context/test_real_llama.py",
    "tests/test_network_guard.py::test_an_attempt_in_a_worker_or_its_child_fails_the_run",
    "tests/engine/config/test_quick_check.py::test_every_single_mistake_in_a_full_config_is_judged_as_jsonschema_judges_it",
    "tests/engine/config/test_quick_check.py::test_the_quick_check_agrees_with_jsonschema_on_config_documents",
    "tests/engine/mcp/test_end_to_end.py::test_a_call_that_never_answers_times_out_and_the_dialog_goes_on",
    "tests/engine/mcp/test_end_to_end.py::test_a_crash_mid_call_is_reported_to_the_model_and_the_next_run_works",
    "tests/engine/mcp/test_end_to_end.py::test_the_model_calls_an_mcp_tool_and_the_answer_arrives",
    "tests/engine/mcp/test_everything_server.py::test_a_url_elicitation_error_shows_the_page_and_the_call_is_made_again_once_the_user_is_done",
    "tests/engine/mcp/test_everything_server.py::test_the_form_itself_refuses_more_choices_than_the_schema_allows",
    "tests/engine/mcp/test_failures.py::test_a_call_that_never_answers_times_out_and_the_server_stays_usable",
    "tests/engine/mcp/test_failures.py::test_a_crash_mid_call_is_an_error_result_and_the_next_use_restarts_it",
    "tests/engine/mcp/test_failures.py::test_a_json_rpc_error_becomes_a_readable_error_result",
    "tests/engine/mcp/test_failures.py::test_a_tool_error_reaches_the_model_as_text",
    "tests/engine/mcp/test_fetch_server.py::test_fetch_prompt_is_offered_with_its_required_argument",
    "tests/engine/mcp/test_lazy_import.py",
    "tests/engine/mcp/test_oauth.py::test_a_slow_sign_in_is_not_cut_off_by_the_start_up_timeout",
    "tests/engine/mcp/test_oauth.py::test_an_expired_token_is_refreshed_without_asking",
    "tests/engine/mcp/test_protocol_features.py::test_approved_sampling_runs_on_the_hinted_model_and_counts_usage",
    "tests/engine/mcp/test_protocol_features.py::test_progress_reaches_the_run_and_keeps_a_long_call_alive",
    "tests/plain/test_attach.py",
    "tests/plain/test_commands.py::test_colour_only_when_asked_and_never_under_no_color",
    "tests/plain/test_commands.py::test_edit_asks_again_in_a_new_branch",
    "tests/plain/test_commands.py::test_export_writes_markdown_or_json",
    "tests/plain/test_commands.py::test_help_unknown_commands_and_a_line_that_begins_with_a_slash",
    "tests/plain/test_commands.py::test_model_lists_every_model_and_chooses_one",
    "tests/plain/test_commands.py::test_readline_editing_writes_no_escape_sequence",
    "tests/plain/test_commands.py::test_regenerate_makes_a_branch_and_branches_list_the_alternatives",
    "tests/plain/test_conversation.py::test_a_failure_and_the_next_start_are_one_line_each",
    "tests/plain/test_conversation.py::test_an_answer_streams_as_labelled_plain_text",
    "tests/plain/test_conversation.py::test_ctrl_c_cancels_an_answer_and_keeps_what_arrived",
    "tests/plain/test_conversation.py::test_sigterm_leaves_as_ctrl_d_does",
    "tests/plain/test_conversation.py::test_term_dumb_chooses_the_plain_mode",
    "tests/plain/test_scrollback.py",
    "tests/plain/test_template_form.py",
    "tests/plain/test_tool_progress.py",
    "tests/plain/test_tools_and_hostile.py",
    "tests/tui/chat/test_big_reply.py",
    "tests/tui/chat/test_vim_composer.py::test_in_the_app_enter_sends_from_normal_mode_and_esc_keeps_its_meaning",
    "tests/tui/main/test_timeline_forks.py",
    "tests/tui/start/test_no_color.py",
    "tests/tui/start/test_theme_contrast.py::test_the_running_app_paints_readable_text_in_each_theme",
    "tests/tui/chat/test_long_messages.py::test_an_unfolded_markdown_message_is_mounted_in_parts",
    "tests/tui/chat/test_long_session_memory.py",
    "tests/tui/chat/test_main_streaming.py::test_a_reply_streams_into_the_pane_and_is_rendered_once_in_full",
    "tests/tui/chat/test_main_streaming.py::test_a_run_goes_on_in_the_background_and_shows_again_when_its_dialog_is_reopened",
    "tests/tui/chat/test_main_streaming.py::test_long_dialogs_mount_the_end_and_load_earlier_messages_on_demand",
    "tests/tui/chat/test_main_streaming.py::test_the_first_words_of_a_burst_are_drawn_at_once_not_a_frame_period_later",
    "tests/tui/chat/test_main_streaming.py::test_the_pane_follows_a_stream_until_the_user_scrolls_up_and_again_after_end",
    "tests/tui/chat/test_message_window.py::test_home_and_end_reach_either_end_of_a_2000_message_dialog_in_one_step",
    "tests/tui/chat/test_message_window.py::test_moving_through_a_long_dialog_keeps_at_most_the_limit_of_views",
    "tests/tui/chat/test_message_window.py::test_opening_a_long_dialog_mounts_what_fills_the_pane_first_and_the_rest_after_the_paint",
    "tests/tui/chat/test_message_window.py::test_page_up_goes_on_past_the_window_into_the_earlier_messages",
    "tests/tui/chat/test_message_window.py::test_replies_in_one_dialog_keep_a_bounded_window_while_following",
    "tests/tui/chat/test_message_window.py::test_sending_from_the_top_of_a_long_dialog_shows_the_end_with_the_reply",
    "tests/tui/chat/test_message_window.py::test_the_scrollbar_spans_the_whole_dialog_and_a_drag_to_its_middle_shows_the_messages_there",
    "tests/tui/chat/test_panes_side_by_side.py",
    "tests/tui/chat/test_stream_layouts.py::test_a_growing_block_repaints_only_its_new_lines_and_shows_what_a_full_repaint_shows",
    "tests/tui/chat/test_stream_layouts.py::test_a_growing_list_grows_in_place_and_ends_as_its_full_parse",
    "tests/tui/chat/test_stream_layouts.py::test_new_blocks_settle_in_batches_so_most_cost_no_layout",
    "tests/tui/chat/test_stream_layouts.py::test_a_streaming_paragraph_is_laid_out_at_most_once_per_frame_and_mostly_not_at_all",
    "tests/tui/compare/test_compare_columns.py::test_a_column_on_the_messages_wire_counts_its_cache_reads_as_tokens_in",
    "tests/tui/chat/test_stream_tail.py::test_at_80x24_the_text_being_streamed_stays_on_screen_on_the_main_screen",
    "tests/tui/chat/test_stream_tail.py::test_at_80x24_the_text_being_streamed_stays_on_screen_in_a_comparison_tab",
    "tests/tui/chat/test_stream_tail.py::test_a_megabyte_reply_shows_its_beginning_and_its_end_with_one_fold_line",
    "tests/tui/chat/test_stream_tail.py::test_a_five_megabyte_reply_shows_its_beginning_and_its_end_with_one_fold_line",
    "tests/tui/compare/test_compare_columns.py::test_a_column_answered_500_says_asking_while_retried_then_streaming",
    "tests/tui/compare/test_compare_columns.py::test_after_a_pick_the_composer_has_the_focus",
    "tests/tui/compare/test_compare_columns.py::test_a_provider_that_answers_one_at_a_time_makes_the_second_column_wait_its_turn",
    "tests/tui/compare/test_compare_columns.py::test_a_question_streams_into_every_column_and_the_pick_opens_on_the_main_screen",
    "tests/tui/compare/test_compare_columns.py::test_alt_c_takes_the_composers_question_to_the_models_chosen_in_the_compare_picker",
    "tests/tui/compare/test_compare_columns.py::test_blind_columns_hide_the_models_in_a_random_order_until_the_pick_reveals_them",
    "tests/tui/compare/test_compare_columns.py::test_each_column_asks_for_its_own_tool_calls_one_at_a_time",
    "tests/tui/compare/test_compare_columns.py::test_on_a_one_at_a_time_provider_cancelling_the_running_column_lets_the_waiting_one_run",
    "tests/tui/compare/test_compare_columns.py::test_x_cancels_the_focused_column_esc_cancels_all_and_leaving_keeps_every_branch",
    "tests/tui/compare/test_compare_columns.py::test_after_a_pick_the_composer_has_the_focus",
    "tests/tui/compare/test_compare_columns.py::test_separators_stand_between_the_columns_after_narrowing_to_tabs_and_widening_again",
    "tests/tui/compare/test_compare_wiring.py::test_alt_d_diffs_the_two_answers_at_the_branch_point",
    "tests/tui/compare/test_compare_wiring.py::test_alt_w_lists_the_points_and_enter_opens_the_other_way_there",
    "tests/tui/main/test_branch_titles.py::test_the_tree_shows_the_model_and_time_beside_the_number_and_the_edited_question_as_the_title",
    "tests/tui/main/test_context_screens.py",
    "tests/tui/main/test_focus_race.py",
    "tests/tui/main/test_fit_choice.py::test_s_sends_the_whole_dialog_as_it_is_nothing_cut",
    "tests/tui/main/test_fit_choice.py::test_c_compacts_into_a_branch_with_a_summary_and_asks_there",
    "tests/tui/main/test_fit_choice.py::test_the_palette_compacts_and_alt_o_moves_the_oldest_turns_out_without_a_model",
    "tests/tui/main/test_leaving.py",
    "tests/tui/main/test_main_branches.py::test_clicking_the_arrows_steps_too",
    "tests/tui/main/test_main_branches.py::test_deleting_asks_first_and_keeps_the_branches_reachable",
    "tests/tui/main/test_main_branches.py::test_editing_an_earlier_question_makes_a_branch_from_that_point",
    "tests/tui/main/test_main_branches.py::test_opening_a_dialog_from_the_tree",
    "tests/tui/main/test_main_branches.py::test_search_lists_hits_and_opens_the_dialog_at_the_message",
    "tests/tui/main/test_main_branches.py::test_stepping_through_alternatives_at_the_point_where_branches_part",
    "tests/tui/main/test_main_branches.py::test_tree_keys_move_to_parent_child_and_siblings",
    "tests/tui/main/test_main_features.py::test_an_answer_the_provider_cut_short_is_marked",
    "tests/tui/main/test_main_features.py::test_copy_a_message_and_a_code_block_through_osc52",
    "tests/tui/main/test_main_features.py::test_function_keys_work_while_typing",
    "tests/tui/main/test_main_features.py::test_links_open_only_after_confirmation",
    "tests/tui/main/test_main_features.py::test_model_and_tool_text_is_stripped_of_control_sequences_and_never_read_as_markup",
    "tests/tui/main/test_main_features.py::test_narrow_terminals_hide_the_sidebar_and_drawer_and_open_them_on_demand",
    "tests/tui/main/test_main_features.py::test_short_reasoning_reads_from_the_top_and_long_live_reasoning_follows_its_end",
    "tests/tui/main/test_main_features.py::test_switching_the_model_applies_to_the_dialog_and_is_recorded_on_each_message",
    "tests/tui/main/test_main_features.py::test_the_drawer_follows_the_stream_live_and_shows_old_messages_reasoning",
    "tests/tui/main/test_main_features.py::test_the_palette_runs_a_command",
    "tests/tui/main/test_main_features.py::test_tool_calls_are_collapsible_blocks_and_ask_before_dangerous_tools",
    "tests/tui/main/test_main_run_notes.py::test_a_run_over_the_providers_limit_says_it_waits",
    "tests/tui/main/test_main_snapshots.py::test_demo_main_screen",
    "tests/tui/main/test_main_snapshots.py::test_help_screen",
    "tests/tui/main/test_resize.py",
    "tests/tui/mcp/test_everything_progress_app.py",
    "tests/tui/mcp/test_hostile_mcp_names.py",
    "tests/tui/mcp/test_mcp_app.py::test_the_sdk_is_loaded_only_when_a_server_is_configured",
    "tests/tui/mcp/test_mcp_features_app.py::test_an_attached_resource_that_changes_is_refreshed_before_it_is_sent",
    "tests/tui/mcp/test_mcp_features_app.py::test_an_elicitation_form_is_filled_and_accepted",
    "tests/tui/mcp/test_mcp_features_app.py::test_denied_sampling_tells_the_server",
    "tests/tui/mcp/test_mcp_features_app.py::test_escape_cancels_an_elicitation_and_the_dialog_goes_on",
    "tests/tui/mcp/test_mcp_features_app.py::test_sampling_is_shown_and_runs_only_when_allowed",
    "tests/tui/mcp/test_mcp_features_app.py::test_the_resource_picker_attaches_a_resource_and_a_template_to_the_next_message",
    "tests/tui/mcp/test_screens_mcp.py::test_add_a_stdio_server_by_keys_with_validation",
    "tests/tui/mcp/test_screens_mcp.py::test_import_a_claude_desktop_file",
    "tests/tui/mcp/test_screens_mcp.py::test_status_comes_from_a_real_server_and_restart_starts_it",
    "tests/tui/platform/test_hostile_terminal.py",
    "tests/tui/platform/test_idle_output.py",
    "tests/tui/platform/test_kitty_graphics.py",
    "tests/tui/platform/test_output_stage.py::test_a_frame_with_nothing_changed_writes_nothing_and_a_one_cell_change_writes_little",
    "tests/tui/platform/test_output_stage.py::test_replayed_frames_leave_the_intended_screen_after_every_frame_with_fewer_bytes",
    "tests/tui/platform/test_seam.py::test_the_deny_list_is_made_from_the_installed_textual_and_rich",
    "tests/tui/platform/test_serve.py::test_two_tabs_each_get_a_working_app_and_the_second_says_it_is_read_only",
    "tests/tui/platform/test_serve_files.py::test_a_file_sent_from_the_page_is_attached_in_the_app_and_one_over_the_limit_is_refused",
    "tests/tui/platform/test_serve_browser.py",
    "tests/tui/platform/test_terminal_gone.py::test_a_reply_streaming_when_the_app_is_ended_is_kept",
    "tests/tui/setup/test_package_tools.py",
    "tests/tui/setup/test_screens_first_run.py::test_add_by_hand_through_the_form",
    "tests/tui/setup/test_screens_parameters.py::test_a_bad_value_is_named_and_nothing_is_saved",
    "tests/tui/setup/test_screens_parameters.py::test_f10_sets_parameters_that_the_status_line_shows_and_the_dialog_keeps",
    "tests/tui/setup/test_screens_providers.py::test_add_a_provider_by_keys_stores_the_key_apart",
    "tests/tui/setup/test_screens_providers.py::test_edit_keeps_or_forgets_the_stored_key",
    "tests/tui/setup/test_screens_providers.py::test_invalid_fields_are_named_and_nothing_is_written",
    "tests/tui/setup/test_screens_skills.py::test_new_skill_form_refuses_bad_input_and_loses_nothing",
    "tests/tui/start/test_main_start.py::test_an_edited_template_is_still_sent_as_the_templates_message",
    "tests/tui/start/test_main_start.py::test_first_run_with_nothing_configured_offers_setup_and_the_demo",
    "tests/tui/start/test_main_start.py::test_the_demo_keeps_its_templates_in_a_temporary_folder_with_a_sample",
    "tests/tui/start/test_main_start.py::test_the_demo_shows_reasoning_a_tool_call_and_a_branch_then_streams_live",
    "tests/tui/start/test_store_check.py::test_damage_met_by_opening_a_dialog_is_repaired_in_the_background_behind_the_progress_screen",
    "tests/tui/start/test_store_check.py::test_the_app_checks_a_big_store_after_start_and_shows_the_repair_as_it_goes",
    "tests/tui/start/test_theme_kept.py::test_the_palette_theme_is_kept_for_the_next_start",
    "tests/tui/templates/test_template_details.py::test_the_demo_library_is_not_called_your_library",
    "tests/tui/templates/test_template_form.py::test_filling_every_field_type_and_sending",
    "tests/tui/templates/test_template_form.py::test_the_summary_above_the_buttons_follows_the_fields_as_they_are_fixed",
    "tests/tui/templates/test_template_library.py::test_a_real_mcp_servers_prompt_is_listed_filled_and_rendered_by_the_server",
    "tests/tui/templates/test_template_library.py::test_a_refused_save_keeps_the_editor_and_the_text",
    "tests/tui/templates/test_template_library.py::test_creating_a_template_writes_a_file",
    "tests/tui/templates/test_template_library.py::test_in_the_app_a_server_only_this_dialog_brings_still_offers_its_prompts",
    "tests/tui/templates/test_template_library.py::test_in_the_app_f6_fills_a_template_and_sends_it_then_edit_first_fills_the_composer",
    "tests/tui/templates/test_template_library.py::test_picking_a_template_fills_sends_and_remembers",
    "tests/tui/templates/test_template_snapshots.py::test_form_required_fields_missing_80x24",
    "tests/tui/workbench/test_workbench_behaviour.py::test_esc_closes_the_drawer_over_the_messages_then_cancels",
    "tests/tui/workbench/test_workbench_behaviour.py::test_stepping_alternatives_brings_the_marker_on_screen_at_80x24",
    "tests/tui/workbench/test_workbench_behaviour.py::test_the_drawer_follows_the_stream_from_the_last_message_and_never_says_live_with_no_reasoning",
    "tests/tui/workbench/test_workbench_behaviour.py::test_the_footer_offers_esc_cancel_only_while_an_answer_can_be_cancelled",
    "tests/tui/workbench/test_workbench_behaviour.py::test_tok_s_is_live_while_streaming_then_the_last_answers_figure_is_marked",
    "tests/test_ask_early.py::test_a_continued_dialog_goes_early_unless_automatic_compaction_is_on",
    "tests/test_ask_cli.py::test_mcp_tools_run_as_in_the_app_allowed_by_their_server_name",
    "tests/test_ask_cli.py::test_continue_then_the_app_lists_the_dialog_opens_it_first_and_continues_it",
    "tests/test_ask_cli.py::test_files_are_attached_by_the_composers_rules",
    "tests/test_ask_cli.py::test_continue_and_dialog_append_to_dialogs_the_app_lists",
    "tests/test_ask_cli.py::test_json_writes_one_event_per_line_and_reasoning_goes_to_stderr_only_when_asked",
    "tests/test_ask_cli.py::test_a_template_is_filled_without_the_form_and_missing_values_are_named",
    "tests/test_ask_cli.py::test_no_save_keeps_the_store_as_it_was",
    "tests/test_ask_cli.py::test_the_app_takes_the_inbox_in_at_its_next_start",
    "tests/test_ask_cli.py::test_beside_a_running_app_the_dialog_goes_to_the_inbox_and_continues_from_there",
    "tests/test_ask_cli.py::test_two_asks_at_once_beside_the_app_both_reach_its_store",
    "tests/test_ask_cli.py::test_two_asks_at_once_lose_nothing_when_the_app_takes_them_in",
    "tests/test_ask_cli.py::test_ask_beside_the_app_in_pilot_appears_in_its_tree_and_continues_there",
    "tests/test_ask_cli.py::test_system_model_and_provider_apply_to_the_dialog",
    "tests/test_ask_cli.py::test_on_a_terminal_markdown_is_rendered_and_in_a_pipe_it_stays_as_written",
    "tests/test_ask_cli.py::test_hostile_model_output_never_reaches_a_terminal_as_escape_sequences",
    "tests/test_ask_cli.py::test_a_failed_answer_is_status_1_with_one_line_and_the_question_kept",
    "tests/test_ask_inbox.py::test_ask_beside_the_app_in_pilot_the_app_lists_shows_and_continues_the_dialog",
    # 2 s or more in the quick loop of 6 December (-n auto, one core busy elsewhere: 3 min 31 s)
    "tests/tui/platform/test_seam.py::test_every_shim_cites_its_upstream_report",
    "tests/tui/chat/test_vim_composer.py::test_a_change_and_its_typing_are_one_undo_as_in_vim",
    "tests/tui/main/test_main_run_notes.py::test_reasoning_that_streamed_as_the_answer_moves_to_the_drawer",
    "tests/tui/platform/test_seam.py::test_the_finder_sees_each_kind_of_use",
    "tests/tui/mcp/test_mcp_features_app.py::test_a_server_prompts_form_completes_its_arguments",
    "tests/engine/mcp/test_lifecycle.py::test_a_dialog_server_replaces_the_center_server_of_the_same_name",
    "tests/engine/storage/test_crash.py::test_sigkill_mid_reply_keeps_the_messages_and_the_reply_up_to_its_last_checkpoint",
    "tests/engine/mcp/test_lifecycle.py::test_stop_then_next_use_starts_it_again",
    "tests/tui/mcp/test_mcp_features_app.py::test_signing_in_from_the_mcp_screen_shows_the_page_and_closes_when_the_browser_returns",
    "tests/tui/main/test_main_branches.py::test_the_drawer_follows_the_alternative_opened_from_a_question",
    "tests/tui/main/test_fit_choice.py::test_after_a_refusal_c_compacts_and_asks_the_kept_question_in_the_branch",
    "tests/tui/main/test_main_features.py::test_live_tool_blocks_show_the_duration_and_a_reused_call_id_gets_its_own_block",
    "tests/tui/compare/test_compare_columns.py::test_below_120_columns_the_columns_are_tabs_and_tab_cycles_them_at_80x24",
    "tests/tui/common/test_screens_snapshots.py::test_provider_form_with_errors_80x24",
    "tests/engine/mcp/test_everything_server.py::test_a_host_that_cannot_show_pages_gets_the_model_the_address",
    "tests/engine/mcp/test_lifecycle.py::test_editing_a_config_retires_the_old_process",
    "tests/engine/mcp/test_http_server.py::test_http_refusals_name_the_status_without_the_secret",
    "tests/tui/mcp/test_mcp_features_app.py::test_the_mcp_screen_lists_each_tool_with_its_annotations",
    "tests/engine/mcp/test_lifecycle.py::test_aclose_stops_every_server_and_leaves_no_orphans",
    "tests/tui/main/test_main_snapshots.py::test_status_line_at_80_columns_keeps_the_meter_and_the_runs_state",
    "tests/engine/storage/test_crash.py::test_sigkill_after_the_stream_stalls_loses_nothing_it_received",
    "tests/tui/templates/test_template_form.py::test_a_required_field_left_empty_blocks_the_submit_with_a_clear_message",
    "tests/tui/setup/test_screens_first_run.py::test_an_address_that_begins_with_a_letter_of_a_key_is_typed_too",
)

#: workers for `-n auto`: one per core and one more, at most this many
MAX_WORKERS = 4


def auto_workers() -> int:
    """`-n auto`: PYTEST_XDIST_AUTO_NUM_WORKERS if set (as pytest-xdist reads it), else one worker per core and
    one more. Much of a test's time is waiting — a Pilot test spends about three quarters of it in the event
    loop's poll (pauses, servers answering) — so a worker per core leaves the cores idle a quarter of the run:
    on 2 cores the suite took 651 s with 2 workers and 472 s with 3, the same half hour (6 December)."""
    chosen = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").strip()
    if chosen.isdigit():
        return max(1, int(chosen))
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores + 1, MAX_WORKERS))


def group_of(item: pytest.Item) -> str | None:
    for group, prefixes in GROUPS.items():
        if item.nodeid.startswith(prefixes):
            return group
    names = set(getattr(item, "fixturenames", ()))
    for group, fixtures in FIXTURE_GROUPS.items():
        if names.intersection(fixtures):
            return group
    return None


def apply(items: list[pytest.Item]) -> None:
    """Mark each collected test: `slow` from SLOW, `xdist_group` from GROUPS (ignored without pytest-xdist)."""
    for item in items:
        if item.nodeid.startswith(SLOW):
            item.add_marker(pytest.mark.slow)
        group = group_of(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
