CREATE TABLE "user_skill_prefs" (
	"user_id" text NOT NULL,
	"skill_name" text NOT NULL,
	"disabled" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "user_skill_prefs_user_id_skill_name_pk" PRIMARY KEY("user_id","skill_name")
);
